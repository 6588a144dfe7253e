package dhcp

import (
	"encoding/binary"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/insomniacslk/dhcp/iana"
)

// Client architectures (option 93, RFC 4578 and the IANA registry).
const (
	archBIOS      iana.Arch = 0
	archEFIx64    iana.Arch = 7
	archEFIBC     iana.Arch = 9
	archEFIARM64  iana.Arch = 11
	archHTTPx64   iana.Arch = 16
	archHTTPARM64 iana.Arch = 19
)

const (
	optIPXEEncap  = 175 // iPXE's encapsulated options; its presence marks iPXE
	classPXE      = "PXEClient"
	classHTTP     = "HTTPClient"
	userClassIPXE = "iPXE"
)

// bootKind says how a netboot client loads its first stage.
type bootKind int

const (
	bootNone bootKind = iota // not a netboot client, or nothing to offer
	bootTFTP                 // PXE firmware: a file name on our TFTP server
	bootHTTP                 // UEFI HTTP boot: a URL, option 60 HTTPClient
	bootIPXE                 // iPXE: the URL of its per-MAC script
)

// netboot is what a client will be told to boot.
type netboot struct {
	kind bootKind
	arch iana.Arch
	file string // TFTP file name or URL
}

// class is the option 60 value of a reply carrying n.
func (n netboot) class() string {
	if n.kind == bootHTTP {
		return classHTTP
	}
	return classPXE
}

// isNetbootClient reports whether req comes from PXE firmware, UEFI HTTP
// boot or iPXE.
func isNetbootClient(req *dhcpv4.DHCPv4) bool {
	vc := req.ClassIdentifier()
	return strings.HasPrefix(vc, classPXE) || strings.HasPrefix(vc, classHTTP) || isIPXE(req)
}

// isIPXE reports whether req comes from iPXE: user class "iPXE" (raw or RFC
// 3004 encoded) or iPXE's option 175.
func isIPXE(req *dhcpv4.DHCPv4) bool {
	if req.Options.Has(dhcpv4.GenericOptionCode(optIPXEEncap)) {
		return true
	}
	if string(req.Options.Get(dhcpv4.OptionUserClassInformation)) == userClassIPXE {
		return true
	}
	for _, uc := range req.UserClass() {
		if uc == userClassIPXE {
			return true
		}
	}
	return false
}

// clientArch returns the architecture from option 93, else from the
// "PXEClient:Arch:NNNNN" vendor class, else BIOS.
func clientArch(req *dhcpv4.DHCPv4) iana.Arch {
	if v := req.Options.Get(dhcpv4.OptionClientSystemArchitectureType); len(v) >= 2 {
		return iana.Arch(binary.BigEndian.Uint16(v))
	}
	parts := strings.Split(req.ClassIdentifier(), ":")
	if len(parts) >= 3 && parts[1] == "Arch" {
		if n, err := strconv.ParseUint(parts[2], 10, 16); err == nil {
			return iana.Arch(n)
		}
	}
	return archBIOS
}

// detect decides what req's client boots, following the URL contract of
// boot/httpboot. It returns bootNone for clients that are not netboot
// clients or whose architecture we have nothing for.
func detect(c *Config, req *dhcpv4.DHCPv4) netboot {
	if !isNetbootClient(req) {
		return netboot{}
	}
	arch := clientArch(req)
	if isIPXE(req) {
		if c.HTTPBase == "" {
			return netboot{}
		}
		return netboot{kind: bootIPXE, arch: arch, file: ScriptURL(c.HTTPBase, req.ClientHWAddr)}
	}
	switch arch {
	case archBIOS:
		return netboot{kind: bootTFTP, arch: arch, file: c.BootfileBIOS}
	case archEFIx64, archEFIBC:
		return netboot{kind: bootTFTP, arch: arch, file: c.BootfileUEFI}
	case archEFIARM64:
		return netboot{kind: bootTFTP, arch: arch, file: c.BootfileARM64}
	case archHTTPx64, archHTTPARM64:
		if c.HTTPBase == "" {
			return netboot{}
		}
		f := c.BootfileUEFI
		if arch == archHTTPARM64 {
			f = c.BootfileARM64
		}
		return netboot{kind: bootHTTP, arch: arch, file: c.HTTPBase + "/ipxe/" + f}
	}
	return netboot{}
}

// ScriptURL is the URL of mac's iPXE script under base:
// <base>/boot/<mac as 52-54-00-00-00-01>/script.ipxe.
func ScriptURL(base string, mac net.HardwareAddr) string {
	return fmt.Sprintf("%s/boot/%s/script.ipxe", base, MACHexHyp(mac))
}

// MACHexHyp formats mac as lower-case hex bytes joined by hyphens, like
// iPXE's ${mac:hexhyp}.
func MACHexHyp(mac net.HardwareAddr) string {
	return strings.ReplaceAll(mac.String(), ":", "-")
}
