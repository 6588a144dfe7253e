package image

import (
	"bytes"
	"compress/gzip"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cavaliergopher/cpio"
)

var update = flag.Bool("update", false, "rewrite golden files")

// fakeInputs makes stand-in busybox and module files (their contents do not
// matter to the archive layout).
func fakeInputs(t *testing.T) InitrdInputs {
	t.Helper()
	dir := t.TempDir()
	in := InitrdInputs{Busybox: filepath.Join(dir, "busybox"), Modules: map[string]string{}, Order: Modules()}
	if err := os.WriteFile(in.Busybox, []byte("\x7fELF busybox"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, m := range in.Order {
		in.Modules[m] = filepath.Join(dir, m+".ko")
		if err := os.WriteFile(in.Modules[m], []byte("module "+m), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return in
}

type entry struct {
	mode cpio.FileMode
	body string
}

func readInitrd(t *testing.T, b []byte) (names []string, entries map[string]entry) {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	r := cpio.NewReader(zr)
	entries = map[string]entry{}
	for {
		hdr, err := r.Next()
		if errors.Is(err, io.EOF) {
			return names, entries
		}
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, hdr.Name)
		entries[hdr.Name] = entry{mode: hdr.Mode, body: string(body)}
	}
}

func TestWriteInitrdIsReproducibleAndComplete(t *testing.T) {
	in := fakeInputs(t)
	var a, b bytes.Buffer
	if err := WriteInitrd(&a, in); err != nil {
		t.Fatal(err)
	}
	if err := WriteInitrd(&b, in); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two builds from the same inputs differ")
	}
	_, entries := readInitrd(t, a.Bytes())
	init, ok := entries["init"]
	if !ok || init.mode != cpio.TypeReg|0o755 {
		t.Fatalf("init entry = %+v, %v; want an executable file", init, ok)
	}
	if !strings.Contains(init.body, "for m in "+strings.Join(Modules(), " ")+"; do") {
		t.Errorf("/init does not load the modules in order:\n%s", init.body)
	}
	if e := entries["bin/busybox"]; e.body != "\x7fELF busybox" || e.mode != cpio.TypeReg|0o755 {
		t.Errorf("bin/busybox = %+v", e)
	}
	if e := entries["etc/udhcpc.script"]; !strings.Contains(e.body, MarkerLease) {
		t.Errorf("etc/udhcpc.script does not print %s", MarkerLease)
	}
	for _, m := range Modules() {
		if e := entries["lib/modules/"+m+".ko"]; e.body != "module "+m {
			t.Errorf("module %s = %+v", m, e)
		}
	}
	for _, d := range []string{"dev", "proc", "sys"} {
		if e, ok := entries[d]; !ok || !e.mode.IsDir() {
			t.Errorf("directory %s missing", d)
		}
	}
}

func TestWriteInitrdMissingModule(t *testing.T) {
	in := fakeInputs(t)
	delete(in.Modules, "virtio_net")
	if err := WriteInitrd(io.Discard, in); !errors.Is(err, ErrInitrd) {
		t.Errorf("WriteInitrd without virtio_net: %v, want ErrInitrd", err)
	}
}

// TestInitScriptGolden pins /init as built (go test -update rewrites it).
func TestInitScriptGolden(t *testing.T) {
	golden := filepath.Join("testdata", "init.golden")
	got := initScript(Modules())
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("/init differs from %s (run go test -update and review the diff)", golden)
	}
}
