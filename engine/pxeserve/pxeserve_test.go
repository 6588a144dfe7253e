package pxeserve_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cavaliergopher/cpio"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/bootsel"
	"github.com/rackboot/rackboot/engine/pxeserve"
)

const ieID = "11111111-1111-4111-8111-111111111111"

// source is the infra-env ieID with files in dir.
type source struct{ kernel, initrd string }

func (s source) InfraEnvPXE(_ context.Context, id string) (bootsel.PXE, error) {
	if id != ieID {
		return bootsel.PXE{}, fmt.Errorf("infra-env %s: %w", id, engine.ErrNotFound)
	}
	return bootsel.PXE{Kernel: s.kernel, Initrd: s.initrd, Ignition: []byte(`{"ignition":{"version":"3.4.0"}}`)}, nil
}

func get(t *testing.T, u string, hdr ...string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest("GET", u, nil)
	if len(hdr) == 2 {
		req.Header.Set(hdr[0], hdr[1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

// The kernel URL serves the profile's kernel (with Range); the initrd URL
// the base initrd followed by a gzip'd cpio with the infra-env's
// config.ign; a forged token is 403, an unknown infra-env 404.
func TestServeArtifacts(t *testing.T) {
	dir := t.TempDir()
	kernel, initrd := filepath.Join(dir, "vmlinuz"), filepath.Join(dir, "initrd.img")
	if err := errors.Join(os.WriteFile(kernel, []byte("the kernel"), 0o644), os.WriteFile(initrd, []byte("base-initrd"), 0o644)); err != nil {
		t.Fatal(err)
	}
	keys := auth.NewKeyRing()
	if _, err := keys.Generate(); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	defer srv.Close()
	s, err := pxeserve.New(pxeserve.Options{Keys: keys, BaseURL: srv.URL, Source: source{kernel, initrd}})
	if err != nil {
		t.Fatal(err)
	}
	mux.Handle(pxeserve.Pattern, s)
	k, i, rootfs, err := s.BootArtifacts(t.Context(), ieID)
	if err != nil || !strings.HasPrefix(k, srv.URL+"/images/"+ieID+"/") || !strings.HasSuffix(i, "/pxe/initrd") || rootfs != "" {
		t.Fatalf("BootArtifacts: %q %q %q %v", k, i, rootfs, err)
	}
	if code, b := get(t, k); code != 200 || string(b) != "the kernel" {
		t.Errorf("kernel: %d %q", code, b)
	}
	if code, b := get(t, k, "Range", "bytes=4-9"); code != http.StatusPartialContent || string(b) != "kernel" {
		t.Errorf("kernel range: %d %q", code, b)
	}
	code, b := get(t, i)
	if code != 200 || !bytes.HasPrefix(b, []byte("base-initrd")) {
		t.Fatalf("initrd: %d", code)
	}
	zr, err := gzip.NewReader(bytes.NewReader(b[12:])) // padded to 4 bytes
	if err != nil {
		t.Fatal(err)
	}
	h, err := cpio.NewReader(zr).Next()
	if err != nil || h.Name != "config.ign" {
		t.Errorf("the initrd's archive: %v %v", h, err)
	}
	parts := strings.Split(k, "/")
	parts[len(parts)-3] = "x.0.forged" // .../images/<id>/<token>/pxe/kernel
	if code, _ := get(t, strings.Join(parts, "/")); code != http.StatusForbidden {
		t.Errorf("forged token: %d", code)
	}
	if _, _, _, err := s.BootArtifacts(t.Context(), "22222222-2222-4222-8222-222222222222"); err == nil {
		t.Error("an unknown infra-env has artifacts")
	}
}
