package main

import (
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// assets are the files every server run shares: a TFTP root with Debian's
// iPXE binaries, and a boot profile (kernel, base initrd, Ignition).
type assets struct {
	tftpRoot   string
	ipxeSize   int64
	kernel     string
	initrd     string
	initrdSize int64
	ignition   string
}

const ipxeDir = "/usr/lib/ipxe"

func makeAssets(dir string, initrdMiB int) (assets, error) {
	a := assets{
		tftpRoot: filepath.Join(dir, "tftproot"),
		kernel:   filepath.Join(dir, "profile", "vmlinuz"),
		initrd:   filepath.Join(dir, "profile", "initrd.img"),
		ignition: filepath.Join(dir, "profile", "bench.ign"),
	}
	for _, d := range []string{a.tftpRoot, filepath.Dir(a.kernel)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return a, err
		}
	}
	// Copies, not symlinks: Debian's ipxe.efi is a link into /boot, which a
	// chrooted tftpd cannot follow.
	for _, f := range []string{"ipxe.efi", "undionly.kpxe", "snponly.efi"} {
		n, err := copyFile(filepath.Join(ipxeDir, f), filepath.Join(a.tftpRoot, f))
		if err != nil {
			return a, err
		}
		if f == "ipxe.efi" {
			a.ipxeSize = n
		}
	}
	if err := randomFile(a.kernel, 4<<20); err != nil {
		return a, err
	}
	a.initrdSize = int64(initrdMiB) << 20
	if err := randomFile(a.initrd, a.initrdSize); err != nil {
		return a, err
	}
	ign := `{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"/etc/motd","contents":{"source":"data:,rackboot%20bench%0A"},"mode":420}]}}` + "\n"
	return a, os.WriteFile(a.ignition, []byte(ign), 0o644)
}

func copyFile(src, dst string) (int64, error) {
	in, err := os.Open(src)
	if err != nil {
		return 0, fmt.Errorf("assets: %w", err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return 0, fmt.Errorf("assets: %w", err)
	}
	n, err := io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return n, fmt.Errorf("assets: copy %s: %w", src, err)
	}
	return n, nil
}

// randomFile writes size bytes of random data: nothing compresses or
// deduplicates it along the way.
func randomFile(path string, size int64) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("assets: %w", err)
	}
	_, err = io.CopyN(f, rand.Reader, size)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("assets: %s: %w", path, err)
	}
	return nil
}
