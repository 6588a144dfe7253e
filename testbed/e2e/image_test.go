package e2e

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/cavaliergopher/cpio"

	"github.com/rackboot/rackboot/testbed/image"
)

// TestImageBuildIsCached: building the image twice gives the same files,
// untouched the second time, and they are what QEMU and the kernel expect
// (a bzImage; an initrd with /init, busybox and every module).
func TestImageBuildIsCached(t *testing.T) {
	requireE2E(t)
	ctx := t.Context()
	first := testImage(t, ctx)
	st1, err := os.Stat(first.Initrd)
	if err != nil {
		t.Fatal(err)
	}
	second := testImage(t, ctx)
	if second != first {
		t.Fatalf("second build gave %+v, first %+v", second, first)
	}
	st2, err := os.Stat(second.Initrd)
	if err != nil {
		t.Fatal(err)
	}
	if !st2.ModTime().Equal(st1.ModTime()) {
		t.Error("the second build rewrote the cached initrd")
	}

	kernel, err := os.ReadFile(first.Kernel)
	if err != nil {
		t.Fatal(err)
	}
	if len(kernel) < 0x206 || string(kernel[0x202:0x206]) != "HdrS" {
		t.Errorf("%s is not a bzImage (no HdrS boot header)", first.Kernel)
	}
	names := initrdNames(t, first.Initrd)
	want := []string{"init", "bin/busybox", "etc/udhcpc.script"}
	for _, m := range image.Modules() {
		want = append(want, "lib/modules/"+m+".ko")
	}
	for _, w := range want {
		if !names[w] {
			t.Errorf("the initrd has no %s", w)
		}
	}
}

func initrdNames(t *testing.T, path string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	r := cpio.NewReader(zr)
	names := map[string]bool{}
	for {
		hdr, err := r.Next()
		if errors.Is(err, io.EOF) {
			return names
		}
		if err != nil {
			t.Fatal(err)
		}
		names[hdr.Name] = true
	}
}
