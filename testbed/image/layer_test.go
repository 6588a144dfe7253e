package image

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/cavaliergopher/cpio"
)

func TestAppendLayer(t *testing.T) {
	dir := t.TempDir()
	var base bytes.Buffer
	if err := WriteInitrd(&base, fakeInputs(t)); err != nil {
		t.Fatal(err)
	}
	basePath, out := filepath.Join(dir, "base"), filepath.Join(dir, "initrd")
	if err := os.WriteFile(basePath, base.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	err := AppendLayer(basePath, out, []LayerFile{
		{Name: "init", Data: []byte("#!/bin/sh\necho layer\n"), Perm: 0o755},
		{Name: "etc/motd", Data: []byte("hello"), Perm: 0o644},
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(got, base.Bytes()) {
		t.Fatal("the layered initrd does not start with the base initrd unchanged")
	}
	names, entries := readInitrd(t, got[base.Len():])
	if len(names) != 2 || names[0] != "init" || names[1] != "etc/motd" {
		t.Errorf("layer entries %v, want [init etc/motd]", names)
	}
	if e := entries["init"]; e.body != "#!/bin/sh\necho layer\n" || e.mode != cpio.TypeReg|0o755 {
		t.Errorf("init = %+v", e)
	}
	if e := entries["etc/motd"]; e.body != "hello" || e.mode != cpio.TypeReg|0o644 {
		t.Errorf("etc/motd = %+v", e)
	}
}

func TestAppendLayerMissingBase(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "initrd")
	err := AppendLayer(filepath.Join(dir, "nope"), out, []LayerFile{{Name: "init", Perm: 0o755}})
	if !errors.Is(err, ErrInitrd) {
		t.Errorf("AppendLayer without a base: %v, want ErrInitrd", err)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("AppendLayer wrote %s although it failed (%v)", out, err)
	}
}
