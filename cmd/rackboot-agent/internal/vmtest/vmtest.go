package vmtest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rackboot/rackboot/testbed/image"
)

// RequireE2E skips t unless RACKBOOT_E2E=1 (the testbed: qemu, OVMF and
// the kernel package).
func RequireE2E(t testing.TB) {
	t.Helper()
	if os.Getenv("RACKBOOT_E2E") != "1" {
		t.Skip("set RACKBOOT_E2E=1 to boot a QEMU VM")
	}
}

// BootImage builds (or takes from the shared cache) testbed/image's kernel
// and busybox initrd.
func BootImage(ctx context.Context, t testing.TB) image.Artifacts {
	t.Helper()
	art, err := image.BuildDefault(ctx)
	if err != nil {
		t.Fatalf("build test image: %v", err)
	}
	return art
}

// Modules returns the testbed kernel's modules names (beyond
// image.Modules(), which every VM loads) as files lib/modules/<name>.ko
// for Initrd; the VM's init loads them with insmod, in order.
func Modules(ctx context.Context, t testing.TB, names ...string) []image.LayerFile {
	t.Helper()
	cache, err := image.DefaultCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	k, err := image.FetchKernel(ctx, cache, t.TempDir(), names)
	if err != nil {
		t.Fatalf("kernel modules %v: %v", names, err)
	}
	files := make([]image.LayerFile, 0, len(names))
	for _, n := range names {
		data, err := os.ReadFile(k.Modules[n])
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, image.LayerFile{Name: "lib/modules/" + n + ".ko", Data: data, Perm: 0o644})
	}
	return files
}

// Initrd builds the Go package pkg (as go build names it, from the test's
// directory) with CGO_ENABLED=0 and returns the path of a new initrd in
// dir: base with init as /init, the binary as /name and the extra files on
// top.
func Initrd(ctx context.Context, t testing.TB, base, dir, pkg, name, init string, extra ...image.LayerFile) string {
	t.Helper()
	bin := filepath.Join(dir, name)
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, pkg)
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build %s: %v\n%s", name, err, out)
	}
	exe, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "initrd")
	err = image.AppendLayer(base, out, append([]image.LayerFile{
		{Name: "init", Data: []byte(init), Perm: 0o755},
		{Name: name, Data: exe, Perm: 0o755},
	}, extra...))
	if err != nil {
		t.Fatal(err)
	}
	return out
}
