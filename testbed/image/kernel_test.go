package image

import (
	"archive/tar"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestParseDepends(t *testing.T) {
	out := "linux-image-amd64\n  Depends: linux-image-6.1.0-56-amd64\n  Recommends: firmware\n"
	got, err := parseDepends(out)
	if err != nil || got != "linux-image-6.1.0-56-amd64" {
		t.Errorf("parseDepends = %q, %v", got, err)
	}
	if _, err := parseDepends("linux-image-amd64\n"); !errors.Is(err, ErrKernelPackage) {
		t.Errorf("no dependency: %v, want ErrKernelPackage", err)
	}
}

func TestParsePrintURIs(t *testing.T) {
	out := "'http://deb.example/pool/l/linux-image.deb' linux-image-6.1.0-56-amd64_6.1.192-2_amd64.deb 70550672 SHA256:ab12\n"
	got, err := parsePrintURIs(out)
	want := debURI{file: "linux-image-6.1.0-56-amd64_6.1.192-2_amd64.deb", size: 70550672, sha256: "ab12"}
	if err != nil || got != want {
		t.Errorf("parsePrintURIs = %+v, %v; want %+v", got, err, want)
	}
	if _, err := parsePrintURIs("'u' ../../evil.deb 1 SHA256:00\n"); !errors.Is(err, ErrKernelPackage) {
		t.Errorf("path in file name: %v, want ErrKernelPackage", err)
	}
	if _, err := parsePrintURIs(""); !errors.Is(err, ErrKernelPackage) {
		t.Errorf("empty output: %v, want ErrKernelPackage", err)
	}
}

func kernelTar(t *testing.T, files map[string]string) *tar.Reader {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for name, body := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	tw.Close()
	return tar.NewReader(&buf)
}

func TestPickFiles(t *testing.T) {
	dir := t.TempDir()
	tr := kernelTar(t, map[string]string{
		"./boot/vmlinuz-6.1.0-56-amd64":                                 "bzImage",
		"./boot/config-6.1.0-56-amd64":                                  "config",
		"./lib/modules/6.1.0-56-amd64/kernel/drivers/virtio/virtio.ko":  "virtio",
		"./lib/modules/6.1.0-56-amd64/kernel/drivers/net/virtio_net.ko": "net",
		"./lib/modules/6.1.0-56-amd64/kernel/drivers/net/e1000.ko":      "e1000",
	})
	kf, err := pickFiles(tr, dir, []string{"virtio", "virtio_net"})
	if err != nil {
		t.Fatal(err)
	}
	if err := checkComplete(kf, []string{"virtio", "virtio_net"}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(kf.kernel); string(b) != "bzImage" {
		t.Errorf("kernel = %q", b)
	}
	if b, _ := os.ReadFile(kf.modules["virtio_net"]); string(b) != "net" {
		t.Errorf("virtio_net = %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "e1000.ko")); err == nil {
		t.Error("an unwanted module was extracted")
	}
	if err := checkComplete(kf, []string{"virtio", "failover"}); !errors.Is(err, ErrKernelFile) {
		t.Errorf("missing module: %v, want ErrKernelFile", err)
	}
}
