package initrd

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cavaliergopher/cpio"
	"github.com/rackboot/rackboot/boot/ignition"
)

// hostConfig is a real per-host config.ign naming hostname.
func hostConfig(t *testing.T, hostname string) []byte {
	t.Helper()
	raw, err := ignition.Config{}.ForHost(hostname)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// readAppendix un-gzips and un-cpios an appendix, returning its entries.
func readAppendix(t *testing.T, app []byte) map[string]*cpio.Header {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(app))
	if err != nil {
		t.Fatalf("appendix is not gzip: %v", err)
	}
	zr.Multistream(false)
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("gunzip: %v", err)
	}
	if !bytes.HasPrefix(raw, []byte("070701")) {
		t.Fatalf("cpio magic = %q, want 070701", raw[:6])
	}
	entries := map[string]*cpio.Header{}
	cr := cpio.NewReader(bytes.NewReader(raw))
	for {
		hdr, err := cr.Next()
		if err == io.EOF {
			return entries
		}
		if err != nil {
			t.Fatalf("cpio: %v", err)
		}
		body, err := io.ReadAll(cr)
		if err != nil {
			t.Fatal(err)
		}
		hdr.Linkname = string(body) // carry the contents out
		entries[hdr.Name] = hdr
	}
}

func TestAppendix(t *testing.T) {
	cfg := hostConfig(t, "master-0")
	app, err := Appendix(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(app)%4 != 0 {
		t.Errorf("appendix is %d bytes, not a multiple of 4", len(app))
	}
	again, _ := Appendix(cfg)
	if !bytes.Equal(app, again) {
		t.Error("Appendix is not deterministic")
	}
	entries := readAppendix(t, app)
	hdr := entries[ConfigName]
	if len(entries) != 1 || hdr == nil {
		t.Fatalf("entries = %v, want only %s", entries, ConfigName)
	}
	if hdr.Mode != cpio.TypeReg|0o644 || hdr.Linkname != string(cfg) {
		t.Errorf("config.ign mode %o, contents %q; want regular 0644 with the config", hdr.Mode, hdr.Linkname)
	}
}

// TestAppendixWithDebianCpio reads the appendix with the real gzip and cpio
// tools, as an operator debugging a host would.
func TestAppendixWithDebianCpio(t *testing.T) {
	for _, tool := range []string{"cpio", "gzip", "sh"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed: %v", tool, err)
		}
	}
	dir := t.TempDir()
	cfg := hostConfig(t, "worker-7")
	app, err := Appendix(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "appendix.gz"), app, 0o644); err != nil {
		t.Fatal(err)
	}
	if msg, err := exec.Command("gzip", "-t", filepath.Join(dir, "appendix.gz")).CombinedOutput(); err != nil {
		t.Fatalf("gzip -t: %v\n%s", err, msg)
	}
	cmd := exec.Command("sh", "-c", "gzip -dc appendix.gz | cpio -t")
	cmd.Dir = dir
	list, err := cmd.Output()
	if err != nil || strings.TrimSpace(string(list)) != ConfigName {
		t.Fatalf("cpio -t: %v\n%s", err, list)
	}
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command("sh", "-c", "gzip -dc ../appendix.gz | cpio -idv")
	cmd.Dir = out
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cpio -idv: %v\n%s", err, msg)
	}
	fi, err := os.Stat(filepath.Join(out, ConfigName))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(out, ConfigName))
	if fi.Mode().Perm() != 0o644 || !bytes.Equal(got, cfg) || !bytes.Contains(got, []byte("worker-7")) {
		t.Errorf("extracted %s: mode %v, contents %q", ConfigName, fi.Mode(), got)
	}
}

// writeBase writes a base initrd of n random bytes.
func writeBase(t *testing.T, n int) (string, []byte) {
	t.Helper()
	base := make([]byte, n)
	r := rand.New(rand.NewPCG(uint64(n), 7))
	for i := range base {
		base[i] = byte(r.Uint32())
	}
	path := filepath.Join(t.TempDir(), "initrd.img")
	if err := os.WriteFile(path, base, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, base
}

func TestOpenIsBaseThenAppendix(t *testing.T) {
	for _, n := range []int{0, 1001, 4096, 65537} {
		path, base := writeBase(t, n)
		app, err := Appendix(hostConfig(t, "master-0"))
		if err != nil {
			t.Fatal(err)
		}
		ird, err := Open(path, app)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(ird.ReadSeeker())
		ird.Close()
		if err != nil {
			t.Fatal(err)
		}
		split := len(base) + int(pad4(int64(len(base))))
		if int64(len(got)) != ird.Size() || len(got) != split+len(app) || split%4 != 0 {
			t.Fatalf("n=%d: size %d (Size %d), want %d+%d", n, len(got), ird.Size(), split, len(app))
		}
		if !bytes.Equal(got[:n], base) || !bytes.Equal(got[n:split], make([]byte, split-n)) {
			t.Fatalf("n=%d: the base bytes are not first, followed by zero padding", n)
		}
		cfg := readAppendix(t, got[split:])[ConfigName]
		if cfg == nil {
			t.Fatalf("n=%d: no %s after the base", n, ConfigName)
		}
		if _, err := ignition.Parse([]byte(cfg.Linkname)); err != nil || !strings.Contains(cfg.Linkname, "master-0") {
			t.Errorf("n=%d: config.ign %q: %v", n, cfg.Linkname, err)
		}
	}
}

func TestReadAtAcrossBoundary(t *testing.T) {
	path, base := writeBase(t, 10_003)
	app, _ := Appendix(hostConfig(t, "h"))
	ird, err := Open(path, app)
	if err != nil {
		t.Fatal(err)
	}
	defer ird.Close()
	want := append(append(append([]byte{}, base...), 0), app...)
	r := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		off := r.Int64N(ird.Size())
		buf := make([]byte, r.IntN(300)+1)
		n, err := ird.ReadAt(buf, off)
		end := min(off+int64(len(buf)), ird.Size())
		if !bytes.Equal(buf[:n], want[off:end]) {
			t.Fatalf("ReadAt(%d, off %d) wrong bytes", len(buf), off)
		}
		if end == off+int64(len(buf)) && err != nil || end < off+int64(len(buf)) && err != io.EOF {
			t.Fatalf("ReadAt(%d, off %d) = %d, %v", len(buf), off, n, err)
		}
	}
	if n, err := ird.ReadAt(make([]byte, 4), ird.Size()); n != 0 || err != io.EOF {
		t.Errorf("read at end = %d, %v", n, err)
	}
}

func TestShrunkBaseIsAnError(t *testing.T) {
	path, _ := writeBase(t, 8192)
	ird, err := Open(path, []byte("appx"))
	if err != nil {
		t.Fatal(err)
	}
	defer ird.Close()
	if err := os.Truncate(path, 100); err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(ird.ReadSeeker())
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("reading a base that shrank: %v, want ErrUnexpectedEOF", err)
	}
}

func TestETag(t *testing.T) {
	path, _ := writeBase(t, 5000)
	tag := func(app string) string {
		ird, err := Open(path, []byte(app))
		if err != nil {
			t.Fatal(err)
		}
		defer ird.Close()
		if e := ird.ETag(); !strings.HasPrefix(e, `"`) || strings.HasPrefix(e, `W/`) {
			t.Fatalf("ETag %s is not a strong quoted tag", e)
		}
		return ird.ETag()
	}
	a := tag("one")
	if tag("one") != a {
		t.Error("ETag changes between opens of the same content")
	}
	if tag("two") == a {
		t.Error("ETag ignores the appendix")
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	if tag("one") == a {
		t.Error("ETag ignores the base file's modification time")
	}
}

func TestOpenErrors(t *testing.T) {
	if _, err := Open(filepath.Join(t.TempDir(), "nope"), nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing base: %v", err)
	}
	if _, err := Open(t.TempDir(), nil); err == nil {
		t.Error("a directory was accepted as a base initrd")
	}
}

func TestWriteRange(t *testing.T) {
	path, base := writeBase(t, 10_003)
	app, _ := Appendix(hostConfig(t, "h"))
	ird, err := Open(path, app)
	if err != nil {
		t.Fatal(err)
	}
	defer ird.Close()
	want := append(append(append([]byte{}, base...), 0), app...)
	for _, rg := range [][2]int64{{0, ird.Size()}, {0, 0}, {10_000, 10}, {10_003, 5}, {5, 10_000}, {ird.Size() - 1, 1}, {10_004, ird.Size() - 10_004}} {
		var buf bytes.Buffer
		n, err := ird.WriteRange(&buf, rg[0], rg[1])
		if err != nil || n != rg[1] || !bytes.Equal(buf.Bytes(), want[rg[0]:rg[0]+rg[1]]) {
			t.Errorf("WriteRange(%d, %d) = %d, %v; bytes match: %v", rg[0], rg[1], n, err, bytes.Equal(buf.Bytes(), want[rg[0]:rg[0]+rg[1]]))
		}
	}
	if _, err := ird.WriteRange(io.Discard, ird.Size()-1, 2); err == nil {
		t.Error("a range past the end was accepted")
	}
}

func TestWriteRangeShrunkBase(t *testing.T) {
	path, _ := writeBase(t, 8192)
	ird, err := Open(path, []byte("appx"))
	if err != nil {
		t.Fatal(err)
	}
	defer ird.Close()
	if err := os.Truncate(path, 100); err != nil {
		t.Fatal(err)
	}
	if _, err := ird.WriteRange(io.Discard, 0, ird.Size()); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("WriteRange over a shrunk base: %v", err)
	}
}
