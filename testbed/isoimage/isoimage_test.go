package isoimage

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/boot/iso"
)

func needTools(t *testing.T) {
	t.Helper()
	if err := CheckTools(); err != nil {
		t.Skip(err)
	}
}

func fakeInputs(t *testing.T) (kernel, initrd string) {
	t.Helper()
	dir := t.TempDir()
	kernel, initrd = filepath.Join(dir, "vmlinuz"), filepath.Join(dir, "initrd")
	os.WriteFile(kernel, bytes.Repeat([]byte("k"), 10000), 0o644)
	os.WriteFile(initrd, bytes.Repeat([]byte("i"), 20000), 0o644)
	return kernel, initrd
}

func TestBuildLayout(t *testing.T) {
	needTools(t)
	kernel, initrd := fakeInputs(t)
	cache := t.TempDir()
	path, err := Build(context.Background(), cache, kernel, initrd)
	if err != nil {
		t.Fatal(err)
	}
	base, err := iso.OpenBase(path)
	if err != nil {
		t.Fatal(err)
	}
	defer base.Close()
	l := base.Layout()
	if l.Ignition.Length != EmbedAreaSize {
		t.Errorf("embed area %+v, want %d bytes", l.Ignition, EmbedAreaSize)
	}
	if l.Kargs == nil || len(l.Kargs.Regions) != 2 || l.Kargs.Default != DefaultKargs {
		t.Fatalf("kargs areas %+v", l.Kargs)
	}
	raw, _ := os.ReadFile(path)
	for _, r := range l.Kargs.Regions {
		if got := string(raw[r.Offset : r.Offset+int64(len(DefaultKargs))+1]); got != DefaultKargs+"\n" {
			t.Errorf("kargs region at %d starts %q", r.Offset, got)
		}
	}
	report, err := exec.Command("xorriso", "-indev", path, "-report_el_torito", "plain").CombinedOutput()
	if err != nil {
		t.Fatalf("xorriso: %v\n%s", err, report)
	}
	for _, want := range []string{"BIOS", "UEFI", "/isolinux/isolinux.bin", "/images/efiboot.img"} {
		if !strings.Contains(string(report), want) {
			t.Errorf("El Torito report lacks %q:\n%s", want, report)
		}
	}
}

func TestBuildIsCachedByContent(t *testing.T) {
	needTools(t)
	kernel, initrd := fakeInputs(t)
	cache := t.TempDir()
	first, err := Build(context.Background(), cache, kernel, initrd)
	if err != nil {
		t.Fatal(err)
	}
	st1, _ := os.Stat(first)
	again, err := Build(context.Background(), cache, kernel, initrd)
	st2, _ := os.Stat(again)
	if err != nil || again != first || !os.SameFile(st1, st2) || !st1.ModTime().Equal(st2.ModTime()) {
		t.Fatalf("second build: %s %v (first %s)", again, err, first)
	}
	os.WriteFile(initrd, []byte("another initrd"), 0o644)
	other, err := Build(context.Background(), cache, kernel, initrd)
	if err != nil || other == first {
		t.Fatalf("changed initrd reused %s: %v", other, err)
	}
}

func TestBuildMissingInput(t *testing.T) {
	needTools(t)
	kernel, _ := fakeInputs(t)
	_, err := Build(context.Background(), t.TempDir(), kernel, "/nonexistent/initrd")
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing initrd: %v", err)
	}
}
