// Package coreostest builds CoreOS-shaped live artifacts for tests: a live
// ISO (built with xorriso, as the testbed's ISO is) holding
// images/pxeboot/{vmlinuz,initrd.img,rootfs.img}, the Ignition embed area
// images/ignition.img and coreos/igninfo.json; the live rootfs beside it;
// and a stream.json naming them for x86_64 and aarch64 with their sha256,
// as FCOS and RHCOS publish it. Nothing is downloaded.
package coreostest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// EmbedAreaSize is the size of the fixture ISO's Ignition embed area.
const EmbedAreaSize = 256 << 10

// Release is the fixture's release name.
const Release = "42.20250101.3.0"

// Mirror is a fixture mirror directory.
type Mirror struct {
	Dir    string // the mirror directory
	Stream string // its stream.json
	// Kernel, Initrd and Rootfs are the bytes the ISO's pxeboot files
	// (and the rootfs file) hold, per architecture.
	Kernel, Initrd, Rootfs map[string][]byte
	// ISO and RootfsFile are the files of each architecture; Metal is
	// its metal .raw.xz (xz of MetalRaw).
	ISO, RootfsFile, Metal map[string]string
	MetalRaw               map[string][]byte
	// AgentDir holds a stand-in rackboot-agent for amd64 and arm64
	// (<dir>/<goarch>/rackboot-agent, as make build lays out bin/agent/);
	// Agent has their bytes by Go architecture.
	AgentDir string
	Agent    map[string][]byte
}

// NeedXorriso skips the test when xorriso is missing (testbed/install-deps.sh installs it).
func NeedXorriso(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("xorriso"); err != nil {
		t.Skip("xorriso not installed (Debian package xorriso; make deps)")
	}
}

// NewMirror writes a mirror for x86_64 and aarch64 into a new temporary
// directory: per architecture a live ISO and a live rootfs, and stream.json.
func NewMirror(t testing.TB) *Mirror {
	t.Helper()
	NeedXorriso(t)
	m := &Mirror{Dir: t.TempDir(), Kernel: map[string][]byte{}, Initrd: map[string][]byte{}, Rootfs: map[string][]byte{},
		ISO: map[string]string{}, RootfsFile: map[string]string{}, Metal: map[string]string{}, MetalRaw: map[string][]byte{}}
	archs := map[string]any{}
	for _, arch := range []string{"x86_64", "aarch64"} {
		m.Kernel[arch] = fmt.Appendf(nil, "kernel of %s\n%s", arch, make([]byte, 5000))
		m.Initrd[arch] = fmt.Appendf(nil, "initramfs of %s\n%s", arch, make([]byte, 7000))
		m.Rootfs[arch] = fmt.Appendf(nil, "rootfs of %s\n%s", arch, make([]byte, 9000))
		prefix := "fedora-coreos-" + Release + "-"
		isoName, rootfsName := prefix+"live."+arch+".iso", prefix+"live-rootfs."+arch+".img"
		m.ISO[arch] = filepath.Join(m.Dir, isoName)
		m.RootfsFile[arch] = filepath.Join(m.Dir, rootfsName)
		writeISO(t, m.ISO[arch], map[string][]byte{
			"images/pxeboot/vmlinuz":    m.Kernel[arch],
			"images/pxeboot/initrd.img": m.Initrd[arch],
			"images/pxeboot/rootfs.img": m.Rootfs[arch],
			"images/ignition.img":       make([]byte, EmbedAreaSize),
			"coreos/igninfo.json":       []byte(`{"file": "images/ignition.img"}`),
		})
		write(t, m.RootfsFile[arch], m.Rootfs[arch])
		metalName := prefix + "metal." + arch + ".raw.xz"
		m.MetalRaw[arch] = fmt.Appendf(nil, "metal image of %s\n%s", arch, make([]byte, 64<<10))
		m.Metal[arch] = filepath.Join(m.Dir, metalName)
		write(t, m.Metal[arch], xzOf(t, m.MetalRaw[arch]))
		archs[arch] = archEntry(t, m, arch, isoName, rootfsName, metalName)
	}
	doc := map[string]any{"stream": "stable", "metadata": map[string]any{"last-modified": "2025-01-01T00:00:00Z"},
		"architectures": archs}
	raw, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	m.Stream = filepath.Join(m.Dir, "stream.json")
	write(t, m.Stream, raw)
	m.AgentDir, m.Agent = t.TempDir(), map[string][]byte{}
	for _, goarch := range []string{"amd64", "arm64"} {
		m.Agent[goarch] = fmt.Appendf(nil, "#!/bin/sh\necho rackboot-agent for %s\n", goarch)
		write(t, filepath.Join(m.AgentDir, goarch, "rackboot-agent"), m.Agent[goarch])
	}
	return m
}

func archEntry(t testing.TB, m *Mirror, arch, isoName, rootfsName, metalName string) any {
	base := "https://builds.example.org/prod/streams/stable/builds/" + Release + "/" + arch + "/"
	art := func(name, path string) map[string]any {
		return map[string]any{"location": base + name, "signature": base + name + ".sig", "sha256": FileSHA256(t, path)}
	}
	return map[string]any{"artifacts": map[string]any{"metal": map[string]any{
		"release": Release,
		"formats": map[string]any{
			"iso": map[string]any{"disk": art(isoName, m.ISO[arch])},
			"pxe": map[string]any{"rootfs": art(rootfsName, m.RootfsFile[arch])},
			"raw.xz": map[string]any{"disk": func() map[string]any {
				a := art(metalName, m.Metal[arch])
				sum := sha256.Sum256(m.MetalRaw[arch])
				a["uncompressed-sha256"] = hex.EncodeToString(sum[:])
				return a
			}()},
		},
	}}}
}

// FileSHA256 is the hex sha256 of the file at path.
func FileSHA256(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func write(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeISO builds an ISO of tree at out with xorriso (Rock Ridge and
// Joliet, like a live ISO).
func writeISO(t testing.TB, out string, tree map[string][]byte) {
	t.Helper()
	src := t.TempDir()
	for name, data := range tree {
		write(t, filepath.Join(src, name), data)
	}
	cmd := exec.Command("xorriso", "-as", "mkisofs", "-quiet", "-R", "-J", "-V", "fedora-coreos-"+Release, "-o", out, src)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("xorriso: %v\n%s", err, b)
	}
}

// xzOf compresses data with the xz tool (xz-utils), as the metal images
// are published.
func xzOf(t testing.TB, data []byte) []byte {
	t.Helper()
	cmd := exec.Command("xz", "-c", "-1")
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("xz: %v", err)
	}
	return out
}
