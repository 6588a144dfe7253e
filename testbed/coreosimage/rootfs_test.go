package coreosimage

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/testbed/image"
	"github.com/rackboot/rackboot/testbed/internal/buildfs"
)

// rootfsCheck runs the initramfs's files/live-rootfs with the host's
// busybox (the shell and applets the initramfs has, nothing else on the
// PATH) on src, wanting the sha256 want; it returns the output, whether it
// succeeded, and the directory it unpacks into.
func rootfsCheck(t *testing.T, src, want string) (string, bool, string) {
	t.Helper()
	if _, err := os.Stat(image.DefaultBusybox); err != nil {
		t.Skipf("no busybox: %v", err)
	}
	dir := t.TempDir()
	bin, dest := filepath.Join(dir, "bin"), filepath.Join(dir, "dest")
	for _, d := range []string{bin, dest} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command(image.DefaultBusybox, "--install", "-s", bin).CombinedOutput(); err != nil {
		t.Fatalf("busybox --install: %v %s", err, out)
	}
	script, wantFile := filepath.Join(dir, "live-rootfs"), filepath.Join(dir, "want")
	if err := os.WriteFile(script, []byte(LiveRootfsScript), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(wantFile, []byte(want+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(image.DefaultBusybox, "sh", script, src, dest, wantFile)
	cmd.Env = []string{"PATH=" + bin, "TMPDIR=" + dir}
	out, err := cmd.CombinedOutput()
	return string(out), err == nil, dest
}

// testRootfs is a gzip cpio holding one file, and its sha256.
func testRootfs(t *testing.T) ([]byte, string) {
	t.Helper()
	var buf bytes.Buffer
	es := []buildfs.Entry{{Name: "usr/bin/tool", Mode: 0o755, Body: "#!/bin/sh\necho tool\n"}}
	if err := buildfs.WriteArchive(&buf, buildfs.DirsOf(nil, es), es); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(buf.Bytes())
	return buf.Bytes(), hex.EncodeToString(sum[:])
}

// serve serves data at /rootfs.img on loopback and returns its URL.
func serve(t *testing.T, data []byte) string {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/rootfs.img" {
			http.NotFound(w, r)
			return
		}
		w.Write(data)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/rootfs.img"
}

// TestLiveRootfsFetchesAndUnpacksTheRootfsItWants: the rootfs at
// coreos.live.rootfs_url (fetched with busybox wget) whose sha256 is the
// one the initramfs carries is unpacked, and said so.
func TestLiveRootfsFetchesAndUnpacksTheRootfsItWants(t *testing.T) {
	data, sum := testRootfs(t)
	out, ok, dest := rootfsCheck(t, serve(t, data), sum)
	if !ok || !strings.Contains(out, "RACKBOOT-ROOTFS sha256="+sum) {
		t.Fatalf("live-rootfs failed: %s", out)
	}
	if b, err := os.ReadFile(filepath.Join(dest, "usr/bin/tool")); err != nil || string(b) != "#!/bin/sh\necho tool\n" {
		t.Errorf("unpacked usr/bin/tool: %q %v", b, err)
	}
}

// TestLiveRootfsRefusesATamperedRootfs: a rootfs with one byte changed,
// fetched from the URL or read from the ISO's file, is refused with the
// sha256s in one clear error line, and nothing of it is unpacked.
func TestLiveRootfsRefusesATamperedRootfs(t *testing.T) {
	data, sum := testRootfs(t)
	bad := bytes.Clone(data)
	bad[len(bad)/2] ^= 0x01
	badSum := sha256.Sum256(bad)
	file := filepath.Join(t.TempDir(), "rootfs.img")
	if err := os.WriteFile(file, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{serve(t, bad), file} {
		out, ok, dest := rootfsCheck(t, src, sum)
		want := "RACKBOOT-ERROR live rootfs " + src + " has sha256 " + hex.EncodeToString(badSum[:]) +
			" but this initramfs wants " + sum + ": refusing it"
		if ok || !strings.Contains(out, want) {
			t.Errorf("%s: ok=%v, output %q; want %q", src, ok, out, want)
		}
		if ents, _ := os.ReadDir(dest); len(ents) != 0 {
			t.Errorf("%s: unpacked %v although refused", src, ents)
		}
	}
}

// TestLiveRootfsUnreachable: a rootfs URL that cannot be fetched is an
// error naming it (after the retries), not a boot without a root.
func TestLiveRootfsUnreachable(t *testing.T) {
	_, sum := testRootfs(t)
	url := serve(t, nil)
	url = strings.Replace(url, "/rootfs.img", "/missing.img", 1)
	out, ok, _ := rootfsCheck(t, url, sum)
	if ok || !strings.Contains(out, "RACKBOOT-ERROR coreos.live.rootfs_url: cannot fetch "+url) {
		t.Errorf("ok=%v output %q", ok, out)
	}
}
