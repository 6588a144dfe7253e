package httpboot

import (
	"bytes"
	"compress/gzip"
	"flag"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/cavaliergopher/cpio"
	"github.com/rackboot/rackboot/boot"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

const (
	reserved = "52:54:00:00:00:01" // listed in profile "install", hostname master-0
	known    = "52:54:00:00:00:02" // default profile, hostname master-1
	stranger = "52:54:00:00:00:99" // default profile, no hostname
	secret   = "TOP-SECRET-OUTSIDE-THE-ROOT"
)

// env is a real set of boot files and a server serving them.
type env struct {
	dir, kernel, initrd, root string
	kernelData, initrdData    []byte
	holder                    *boot.Holder
	srv                       *httptest.Server
	logs                      *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func randomBytes(n int, seed uint64) []byte {
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(seed, seed))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func parseMAC(t testing.TB, s string) net.HardwareAddr {
	t.Helper()
	m, err := boot.ParseMAC(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// newEnv writes the files (a base initrd of initrdSize bytes) and starts
// a server. withDefault adds the default profile "discovery".
func newEnv(t testing.TB, initrdSize int, withDefault bool) *env {
	t.Helper()
	dir := t.TempDir()
	e := &env{dir: dir, kernel: filepath.Join(dir, "vmlinuz"), initrd: filepath.Join(dir, "initrd.img"), root: filepath.Join(dir, "tftproot")}
	e.kernelData, e.initrdData = randomBytes(100_000, 1), randomBytes(initrdSize, 2)
	writeFile(t, e.kernel, e.kernelData)
	writeFile(t, e.initrd, e.initrdData)
	ign := filepath.Join(dir, "discovery.ign")
	writeFile(t, ign, []byte(`{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"/etc/motd","mode":420,"contents":{"source":"data:,rackboot%0A"}}]}}`))
	if err := os.MkdirAll(filepath.Join(e.root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(e.root, "undionly.kpxe"), []byte("undionly"))
	writeFile(t, filepath.Join(e.root, "ipxe.efi"), randomBytes(5000, 3))
	writeFile(t, filepath.Join(e.root, ".hidden"), []byte(secret))
	writeFile(t, filepath.Join(e.root, "sub", "inner"), []byte(secret))
	writeFile(t, filepath.Join(dir, "secret"), []byte(secret))

	profiles := []boot.Profile{{Name: "install", Kernel: e.kernel, Initrd: e.initrd, Ignition: ign,
		Cmdline: "console=ttyS0 ignition.firstboot", MACs: []net.HardwareAddr{parseMAC(t, reserved)}}}
	if withDefault {
		profiles = append(profiles, boot.Profile{Name: "discovery", Kernel: e.kernel, Initrd: e.initrd, Ignition: ign, Cmdline: "console=ttyS0"})
	}
	cat, err := boot.NewCatalog(profiles, []boot.Host{{MAC: parseMAC(t, reserved), Hostname: "master-0"}, {MAC: parseMAC(t, known), Hostname: "master-1"}})
	if err != nil {
		t.Fatal(err)
	}
	e.holder = boot.NewHolder(cat)
	e.logs = &syncBuffer{}
	disk := filepath.Join(e.dir, "disk.img")
	writeFile(t, disk, []byte("disk image"))
	h, err := New(Options{BaseURL: "http://10.99.0.1:8080", Boot: e.holder, IPXE: os.DirFS(e.root),
		Images: imageMap{"os-1": {Path: disk}}, Logger: slog.New(slog.NewJSONHandler(e.logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	e.srv = httptest.NewServer(h)
	t.Cleanup(e.srv.Close)
	return e
}

// get does a request and returns the response with its body read.
func (e *env) do(t testing.TB, method, path string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, e.srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// configIgn splits a served initrd after the base (and its zero padding)
// and returns the config.ign inside the gzip cpio appendix.
func configIgn(t testing.TB, served []byte, baseLen int) []byte {
	t.Helper()
	split := baseLen + (4-baseLen%4)%4
	zr, err := gzip.NewReader(bytes.NewReader(served[split:]))
	if err != nil {
		t.Fatalf("no gzip appendix after the base initrd: %v", err)
	}
	zr.Multistream(false)
	cr := cpio.NewReader(zr)
	for {
		hdr, err := cr.Next()
		if err != nil {
			t.Fatalf("no config.ign in the appendix: %v", err)
		}
		if hdr.Name == "config.ign" {
			b, err := io.ReadAll(cr)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
}
