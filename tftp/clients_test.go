package tftp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// These tests fetch files from the server with the TFTP clients people
// use: curl, tftp-hpa's tftp and atftp (Debian packages curl, tftp-hpa,
// atftp; .ci/run installs them).

// client runs one real TFTP client to fetch remote into local.
type client struct {
	name     string
	args     func(port, remote, local string) []string
	windowed bool // asks windowsize 4 and traces packets
}

var (
	curl = client{"curl", func(port, remote, local string) []string { // blksize as iPXE asks
		return []string{"-sS", "--path-as-is", "--tftp-blksize", "1432", "-o", local, "tftp://127.0.0.1:" + port + "/" + remote}
	}, false}
	tftpHPA = client{"tftp", func(port, remote, local string) []string { // no options: 512-byte lock-step
		return []string{"127.0.0.1", port, "-m", "binary", "-c", "get", remote, local}
	}, false}
	atftpWindowed = client{"atftp", func(port, remote, local string) []string { // what EDK2 asks for
		return []string{"--trace", "--get", "-r", remote, "-l", local,
			"--option", "blksize 1468", "--option", "windowsize 4", "--option", "tsize 0", "127.0.0.1", port}
	}, true}
	atftpPlain = client{"atftp", func(port, remote, local string) []string {
		return []string{"--get", "-r", remote, "-l", local, "127.0.0.1", port}
	}, false}
)

// get runs c and returns its combined output and whether it reported
// success. tftp-hpa exits 0 even after an ERROR, so its output is read too.
func (c client) get(t *testing.T, f *fixture, remote, local string) (string, bool) {
	t.Helper()
	bin, err := exec.LookPath(c.name)
	if err != nil {
		t.Skipf("%s not installed (apt-get install curl tftp-hpa atftp): %v", c.name, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, c.args(f.port(), remote, local)...).CombinedOutput()
	ok := err == nil && !strings.Contains(string(out), "Error code") && !strings.Contains(string(out), "error received")
	return string(out), ok
}

func TestRealClientsFetchFiles(t *testing.T) {
	f := newFixture(t, Config{})
	dir := t.TempDir()
	n := 0
	for _, c := range []client{curl, tftpHPA, atftpWindowed, atftpPlain} {
		for _, name := range []string{"big.bin", "hello.txt", "exact.bin", "empty", "sub/inner.txt"} {
			n++
			local := filepath.Join(dir, fmt.Sprintf("%d", n))
			out, ok := c.get(t, f, name, local)
			got, err := os.ReadFile(local)
			if !ok || err != nil || !bytes.Equal(got, f.file(t, name)) {
				t.Errorf("%s %s: ok=%v, %d bytes (%v), want %d bytes\n%s", c.name, name, ok, len(got), err, len(f.file(t, name)), out)
			}
			if c.windowed && !strings.Contains(out, "received OACK <tsize: "+fmt.Sprint(len(got))) || c.windowed && !strings.Contains(out, "windowsize: 4, ") {
				t.Errorf("atftp %s: tsize and windowsize 4 not acknowledged:\n%s", name, out)
			}
		}
	}
	waitStats(t, f.srv, func(s Stats) bool { return s.Completed == uint64(n) && s.Failed == 0 })
}

func TestRealClientsAreRefusedOutsideTheRoot(t *testing.T) {
	f := newFixture(t, Config{})
	dir := t.TempDir()
	passwd, _ := os.ReadFile("/etc/passwd")
	n := 0
	for _, c := range []client{curl, tftpHPA, atftpPlain, atftpWindowed} {
		for _, name := range []string{"../../etc/passwd", "/etc/passwd", "sub/../../x", "../secret.txt", `..\secret.txt`, "abs-escape", "rel-escape", "sub", "missing"} {
			n++
			local := filepath.Join(dir, fmt.Sprintf("%d", n))
			out, ok := c.get(t, f, name, local)
			got, _ := os.ReadFile(local)
			if ok || len(got) > 0 {
				t.Errorf("%s %q: ok=%v, received %d bytes, want an error and nothing\n%s", c.name, name, ok, len(got), out)
			}
			if bytes.Contains(got, []byte("SECRET")) || (len(passwd) > 0 && bytes.Contains(got, passwd[:min(len(passwd), 16)])) {
				t.Fatalf("%s %q leaked a file from outside the root", c.name, name)
			}
		}
	}
	st := waitStats(t, f.srv, func(s Stats) bool { return s.Rejected == uint64(n) })
	if st.Started != 0 {
		t.Errorf("refused requests started transfers: %+v", st)
	}
}

func TestRealClientsRefusedWrites(t *testing.T) {
	f := newFixture(t, Config{})
	src := filepath.Join(t.TempDir(), "up")
	writeFile(t, src, []byte("upload"))
	if _, err := exec.LookPath("tftp"); err != nil {
		t.Skip("tftp-hpa not installed")
	}
	out, _ := exec.Command("tftp", "127.0.0.1", f.port(), "-m", "binary", "-c", "put", src, "uploaded").CombinedOutput()
	if !strings.Contains(string(out), "Error code 2") {
		t.Errorf("tftp put: want Error code 2 (access violation), got:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(f.root, "uploaded")); err == nil {
		t.Fatal("a write request created a file")
	}
	waitStats(t, f.srv, func(s Stats) bool { return s.Rejected == 1 })
}

// TestFiftyConcurrentTransfers fetches a 4 MiB file 50 times at once with
// a mix of clients and checks every copy.
func TestFiftyConcurrentTransfers(t *testing.T) {
	// The 50 clients all come from 127.0.0.1 here; on a PXE segment each
	// has its own address.
	f := newFixture(t, Config{MaxTransfersPerClient: 50})
	want := sha256.Sum256(f.file(t, "big.bin"))
	clients := []client{curl, atftpWindowed, tftpHPA, atftpPlain}
	for _, c := range clients {
		if _, err := exec.LookPath(c.name); err != nil {
			t.Skipf("%s not installed", c.name)
		}
	}
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make(chan string, 50)
	for i := range 50 {
		wg.Go(func() {
			c := clients[i%len(clients)]
			local := filepath.Join(dir, fmt.Sprintf("copy-%d", i))
			out, ok := c.get(t, f, "big.bin", local)
			got, err := os.ReadFile(local)
			if !ok || err != nil || sha256.Sum256(got) != want {
				errs <- fmt.Sprintf("%s #%d: ok=%v, %d bytes, sha256 mismatch or error %v\n%s", c.name, i, ok, len(got), err, truncate(out, 2000))
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	st := waitStats(t, f.srv, func(s Stats) bool { return s.Completed+s.Failed == 50 })
	if st.Completed != 50 || st.Bytes != 50*uint64(len(f.file(t, "big.bin"))) {
		t.Errorf("stats after 50 transfers: %+v", st)
	}
}
