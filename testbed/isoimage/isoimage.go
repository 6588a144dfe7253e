package isoimage

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/rackboot/rackboot/testbed/internal/buildfs"
)

// Errors returned by Build.
var (
	ErrTool  = errors.New("isoimage: a build tool is missing")
	ErrBuild = errors.New("isoimage: build failed")
)

// Host files the ISO is built from (Debian's paths).
const (
	IsolinuxBin = "/usr/lib/ISOLINUX/isolinux.bin"             // isolinux
	IsohdpfxBin = "/usr/lib/ISOLINUX/isohdpfx.bin"             // isolinux (hybrid MBR)
	LdlinuxC32  = "/usr/lib/syslinux/modules/bios/ldlinux.c32" // syslinux-common
	GrubEFIDir  = "/usr/lib/grub/x86_64-efi"                   // grub-efi-amd64-bin
)

// formatVersion changes whenever the layout changes in a way the hashed
// inputs do not capture.
const formatVersion = "rackboot-discovery-iso-2"

// Packages are the Debian packages Build needs.
var Packages = []string{"xorriso", "isolinux", "syslinux-common", "grub-efi-amd64-bin", "grub-common", "dosfstools", "mtools"}

var tools = []string{"xorriso", "grub-mkstandalone", "mkfs.vfat", "mmd", "mcopy"}

// Build makes the hybrid BIOS/UEFI discovery ISO from kernel and initrd
// under cacheDir and returns its path. An ISO already built from inputs of
// the same content is reused; concurrent builds into one cacheDir are
// serialised.
func Build(ctx context.Context, cacheDir, kernel, initrd string) (string, error) {
	if err := CheckTools(); err != nil {
		return "", err
	}
	key, err := cacheKey(kernel, initrd)
	if err != nil {
		return "", err
	}
	return cached(cacheDir, filepath.Join(key, "discovery.iso"), func(stage string) (string, error) {
		return build(ctx, stage, kernel, initrd)
	})
}

// cached returns cacheDir/iso/name when it is there, else runs make in a
// stage directory and moves the ISO it returns there. Concurrent builds
// into one cacheDir are serialised by a lock.
func cached(cacheDir, name string, make func(stage string) (string, error)) (string, error) {
	dir := filepath.Join(cacheDir, "iso")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("isoimage: %w", err)
	}
	unlock, err := buildfs.Lock(filepath.Join(dir, "lock"))
	if err != nil {
		return "", fmt.Errorf("isoimage: %w", err)
	}
	defer unlock()
	out := filepath.Join(dir, name)
	if st, err := os.Stat(out); err == nil && st.Size() > 0 {
		return out, nil
	}
	stage, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		return "", fmt.Errorf("isoimage: %w", err)
	}
	defer os.RemoveAll(stage)
	iso, err := make(stage)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return "", fmt.Errorf("isoimage: %w", err)
	}
	if err := os.Rename(iso, out); err != nil {
		return "", fmt.Errorf("isoimage: %w", err)
	}
	return out, nil
}

// CheckTools says which tool or host file is missing, naming the packages.
func CheckTools() error {
	for _, t := range tools {
		if _, err := exec.LookPath(t); err != nil {
			return fmt.Errorf("%w: %s (install %v)", ErrTool, t, Packages)
		}
	}
	for _, f := range []string{IsolinuxBin, IsohdpfxBin, LdlinuxC32, filepath.Join(GrubEFIDir, "moddep.lst")} {
		if _, err := os.Stat(f); err != nil {
			return fmt.Errorf("%w: %s (install %v)", ErrTool, f, Packages)
		}
	}
	return nil
}

// build lays out the discovery ISO's tree in stage and runs xorriso; it
// returns the ISO.
func build(ctx context.Context, stage, kernel, initrd string) (string, error) {
	files, err := treeFiles()
	if err != nil {
		return "", err
	}
	return buildTree(ctx, stage, treeSpec{label: "RACKBOOT_DISCOVERY", files: files,
		grafts: []string{"/images/vmlinuz=" + kernel, "/images/initrd.img=" + initrd}})
}

// treeSpec is what an ISO holds besides its bootloaders: the volume label,
// the generated files (by path) and host files grafted in ("/path=file").
type treeSpec struct {
	label  string
	files  map[string][]byte
	grafts []string
}

// buildTree writes spec's files and the EFI image into stage and runs
// xorriso (isolinux for BIOS, GRUB for UEFI, hybrid MBR and GPT); it
// returns the ISO.
func buildTree(ctx context.Context, stage string, spec treeSpec) (string, error) {
	tree := filepath.Join(stage, "tree")
	for name, data := range spec.files {
		if err := writeFile(filepath.Join(tree, name), data); err != nil {
			return "", err
		}
	}
	if err := efiImage(ctx, stage, filepath.Join(tree, "images", "efiboot.img")); err != nil {
		return "", err
	}
	iso := filepath.Join(stage, "out.iso")
	args := []string{"-as", "mkisofs", "-quiet", "-R", "-J", "-V", spec.label, "-o", iso,
		"-isohybrid-mbr", IsohdpfxBin,
		"-b", "isolinux/isolinux.bin", "-c", "isolinux/boot.cat",
		"-no-emul-boot", "-boot-load-size", "4", "-boot-info-table",
		"-eltorito-alt-boot", "-e", "images/efiboot.img", "-no-emul-boot", "-isohybrid-gpt-basdat",
		"-graft-points", "/=" + tree,
		"/isolinux/isolinux.bin=" + IsolinuxBin, "/isolinux/ldlinux.c32=" + LdlinuxC32}
	return iso, run(ctx, "xorriso", append(args, spec.grafts...)...)
}

// treeFiles are the generated files of the ISO, by path.
func treeFiles() (map[string][]byte, error) {
	kargs, err := kargsJSON()
	if err != nil {
		return nil, err
	}
	iso, _ := isolinuxConfig()
	grub, _ := grubConfig()
	return map[string][]byte{
		isolinuxCfg:           []byte(iso),
		grubCfg:               []byte(grub),
		"coreos/igninfo.json": []byte(ignInfoJSON),
		"coreos/kargs.json":   []byte(kargs),
		EmbedPath:             make([]byte, EmbedAreaSize),
	}, nil
}

// cacheKey hashes everything the ISO is made of.
func cacheKey(kernel, initrd string) (string, error) {
	h := sha256.New()
	files, err := treeFiles()
	if err != nil {
		return "", err
	}
	fmt.Fprintf(h, "%s\n%s\n%s\n%s\n%s\n", formatVersion, files[isolinuxCfg], files[grubCfg], files["coreos/kargs.json"], grubEmbedded)
	for _, f := range []string{kernel, initrd, IsolinuxBin, IsohdpfxBin, LdlinuxC32,
		filepath.Join(GrubEFIDir, "moddep.lst"), filepath.Join(GrubEFIDir, "kernel.img")} {
		if err := hashFile(h, f); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:20], nil
}

func hashFile(w io.Writer, name string) error {
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("isoimage: %w", err)
	}
	defer f.Close()
	fmt.Fprintf(w, "%s\n", name)
	if _, err := io.Copy(w, f); err != nil {
		return fmt.Errorf("isoimage: %s: %w", name, err)
	}
	return nil
}

func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("isoimage: %w", err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("isoimage: %w", err)
	}
	return nil
}

// run runs a tool, returning its output in the error.
func run(ctx context.Context, name string, args ...string) error {
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%w: %s: %w\n%s", ErrBuild, name, err, out)
	}
	return nil
}
