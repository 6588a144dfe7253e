package osimage

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

//go:embed files/grub.cfg
var grubCfg string

// grubModules are the GRUB modules BOOTX64.EFI carries (grub.cfg's and
// what they need); the rest of Debian's x86_64-efi set is left out.
var grubModules = []string{"part_gpt", "ext2", "fat", "linux", "regexp", "test", "echo", "search",
	"search_label", "configfile", "normal", "sleep", "reboot", "gzio", "efi_gop", "all_video"}

// GrubCfg is the GRUB configuration baked into the image's BOOTX64.EFI.
func GrubCfg() string { return grubCfg }

// grubVersion names the grub-mkstandalone that builds BOOTX64.EFI (part of
// the cache key).
func grubVersion(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "grub-mkstandalone", "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%w: grub-mkstandalone (grub-efi-amd64-bin, grub-common): %w", ErrBuild, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// makeGrub writes BOOTX64.EFI: GRUB for x86_64-efi with grub.cfg and the
// modules in its memdisk (grub-mkstandalone).
func makeGrub(ctx context.Context, dir, out string) error {
	cfg := filepath.Join(dir, "grub.cfg")
	if err := os.WriteFile(cfg, []byte(grubCfg), 0o644); err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	mods := strings.Join(grubModules, " ")
	return run(ctx, nil, "grub-mkstandalone", "-O", "x86_64-efi", "-o", out,
		"--modules="+mods, "--install-modules="+mods, "--locales=", "--themes=", "--fonts=",
		"boot/grub/grub.cfg="+cfg)
}

// blsEntry is the image's boot loader entry (Boot Loader Specification,
// as ostree writes CoreOS's: options before linux and initrd).
// $ignition_firstboot is expanded by grub.cfg.
func blsEntry(kver, cmdline string) string {
	return fmt.Sprintf("title rackboot testbed OS (%[1]s)\nversion %[1]s\noptions %[2]s ignition.platform.id=metal $ignition_firstboot\n"+
		"linux /vmlinuz-%[1]s\ninitrd /initramfs-%[1]s.img\n", kver, cmdline)
}

// EntryPath is the path of the image's BLS entry on the boot file system.
const EntryPath = "loader/entries/rackboot-1.conf"

// kernelVersion is the kernel release of a linux-image .deb file name
// (linux-image-6.1.0-56-amd64_6.1.192-2_amd64.deb: 6.1.0-56-amd64).
func kernelVersion(deb string) (string, error) {
	v, _, ok := strings.Cut(strings.TrimPrefix(filepath.Base(deb), "linux-image-"), "_")
	if !ok || v == "" || strings.ContainsAny(v, "/ \t") {
		return "", fmt.Errorf("%w: no kernel version in %q", ErrBuild, deb)
	}
	return v, nil
}

// bootFiles fills dir with the boot file system: the kernel and initramfs,
// the BLS entry, the first-boot stamp (empty, as CoreOS ships it) and the
// ignition directory coreos-installer writes config.ign into.
func bootFiles(dir, kver, kernel, initrd, cmdline string) error {
	files := []struct {
		name, src, body string
		mode            os.FileMode
	}{
		{name: "vmlinuz-" + kver, src: kernel, mode: 0o644},
		{name: "initramfs-" + kver + ".img", src: initrd, mode: 0o644},
		{name: EntryPath, body: blsEntry(kver, cmdline), mode: 0o644},
		{name: StampName, mode: 0o644},
	}
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("%w: %w", ErrBuild, err)
		}
		if f.src != "" {
			if err := os.Rename(f.src, p); err != nil {
				return fmt.Errorf("%w: %w", ErrBuild, err)
			}
		} else if err := os.WriteFile(p, []byte(f.body), f.mode); err != nil {
			return fmt.Errorf("%w: %w", ErrBuild, err)
		}
		if err := os.Chmod(p, f.mode); err != nil {
			return fmt.Errorf("%w: %w", ErrBuild, err)
		}
	}
	return nil
}

// osRelease is the root file system's /etc/os-release: what the image says
// it is.
const osRelease = `NAME="rackboot testbed OS"
ID=rackboot-testbed
PRETTY_NAME="rackboot testbed OS"
VERSION_ID=1
`

// rootFiles fills dir with the root file system's files.
func rootFiles(dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, "etc"), 0o755); err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "etc", "os-release"), []byte(osRelease), 0o644); err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	return nil
}
