package ipxe

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
)

// ErrBadURL is wrapped by every error for a base URL that cannot go into a
// script.
var ErrBadURL = errors.New("bad base URL")

// Boot is what a boot script needs: where the artifacts are served from, the
// MAC whose artifacts they are, and the kernel arguments.
type Boot struct {
	BaseURL string           // http://<advertise>:<port>, no trailing slash
	MAC     net.HardwareAddr // the booting machine
	Cmdline string           // kernel arguments after initrd=initrd; may be empty
}

// BootScript renders the per-MAC script that fetches the MAC's initrd and
// kernel and boots them. The initrd is named and passed with initrd= so that
// UEFI kernels find it. Every value is checked again here.
func BootScript(b Boot) ([]byte, error) {
	if err := CheckBaseURL(b.BaseURL); err != nil {
		return nil, err
	}
	if err := CheckKernelArgs(b.Cmdline); err != nil {
		return nil, err
	}
	if len(b.MAC) != 6 {
		return nil, fmt.Errorf("%w: MAC %q is not 6 bytes", ErrUnsafe, b.MAC.String())
	}
	dir := b.BaseURL + "/boot/" + HexHyp(b.MAC)
	kernel := "kernel " + dir + "/kernel initrd=initrd"
	if args := strings.TrimSpace(b.Cmdline); args != "" {
		kernel += " " + args
	}
	return []byte("#!ipxe\n" +
		"initrd --name initrd " + dir + "/initrd\n" +
		kernel + "\n" +
		"boot\n"), nil
}

// ExitScript renders the script for a machine that should boot from its own
// disk: iPXE exits with status 1 and the firmware boots the next boot
// device. The status matters under UEFI: ipxe.efi returns the script's exit
// status as its EFI status (0 as EFI_SUCCESS, anything else as an error,
// also through a chain from /boot.ipxe), and EDK2's boot manager (OVMF)
// tries the next Boot#### option only after an error; after EFI_SUCCESS it
// stops and opens its boot manager menu instead of the disk. Under BIOS
// iPXE returns to the BIOS whatever the status, which then boots the next
// device. testbed/osimage's TestIPXEExitScriptFallsThroughToDisk* show both.
func ExitScript() []byte {
	return []byte("#!ipxe\nexit 1\n")
}

// ChainScript renders the generic /boot.ipxe script, which any iPXE can load:
// it chains to the script of the machine's own MAC.
func ChainScript(baseURL string) ([]byte, error) {
	if err := CheckBaseURL(baseURL); err != nil {
		return nil, err
	}
	return []byte("#!ipxe\nchain " + baseURL + "/boot/${mac:hexhyp}/script.ipxe\n"), nil
}

// HexHyp formats a MAC the way iPXE's ${mac:hexhyp} does: lower-case hex
// pairs joined by hyphens, e.g. 52-54-00-00-00-01.
func HexHyp(mac net.HardwareAddr) string {
	return strings.ReplaceAll(mac.String(), ":", "-")
}

// CheckBaseURL accepts an absolute http or https URL with a host, an optional
// path without a trailing slash, and no user, query or fragment, made only of
// characters that have no meaning to iPXE.
func CheckBaseURL(s string) error {
	for i, c := range s {
		if !isAlnum(c) && !strings.ContainsRune(".:-_~/[]", c) {
			return fmt.Errorf("%w: %q: character %q at offset %d is not allowed", ErrBadURL, s, c, i)
		}
	}
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBadURL, err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("%w: %q: the scheme must be http or https", ErrBadURL, s)
	case u.Host == "":
		return fmt.Errorf("%w: %q has no host", ErrBadURL, s)
	case strings.HasSuffix(u.Path, "/"):
		return fmt.Errorf("%w: %q must not end with '/'", ErrBadURL, s)
	case u.Opaque != "" || u.User != nil:
		return fmt.Errorf("%w: %q is not of the form http://host[:port][/path]", ErrBadURL, s)
	}
	return nil
}
