package engine_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/rackboot/rackboot/engine"
)

func TestSealerRoundTrip(t *testing.T) {
	dir := t.TempDir()
	s, err := engine.LoadOrCreateSealer(dir)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, engine.SealKeyFile))
	if err != nil || fi.Mode().Perm() != 0o600 || fi.Size() != 32 {
		t.Fatalf("key file: %v %v", fi, err)
	}
	sealed, err := s.Seal("bmc-0", "password", []byte("calvin"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(sealed, []byte("calvin")) || !engine.IsSealed(sealed) {
		t.Errorf("sealed value %q shows the plaintext or lacks the prefix", sealed)
	}
	// The same key file opens it again (a restart).
	again, err := engine.LoadOrCreateSealer(dir)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := again.Open("bmc-0", "password", sealed); err != nil || string(v) != "calvin" {
		t.Errorf("Open = %q, %v", v, err)
	}
	// Bound to its secret and key: moving it elsewhere does not open.
	for _, c := range [][2]string{{"bmc-1", "password"}, {"bmc-0", "username"}} {
		if _, err := again.Open(c[0], c[1], sealed); !errors.Is(err, engine.ErrUnseal) {
			t.Errorf("Open as %v: %v, want ErrUnseal", c, err)
		}
	}
	other, _ := engine.NewSealer(bytes.Repeat([]byte{7}, 32))
	if _, err := other.Open("bmc-0", "password", sealed); !errors.Is(err, engine.ErrUnseal) {
		t.Errorf("another key: %v", err)
	}
	if _, err := again.Open("bmc-0", "password", []byte("calvin")); !errors.Is(err, engine.ErrUnseal) {
		t.Errorf("plaintext opened: %v", err)
	}
}

func TestSealKeyFileRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, engine.SealKeyFile)
	if err := os.WriteFile(path, bytes.Repeat([]byte{1}, 32), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := engine.LoadOrCreateSealer(dir); !errors.Is(err, engine.ErrSealKey) {
		t.Errorf("world-readable key: %v", err)
	}
	if err := os.WriteFile(path, []byte("short"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o600)
	if _, err := engine.LoadOrCreateSealer(dir); !errors.Is(err, engine.ErrSealKey) {
		t.Errorf("short key: %v", err)
	}
}
