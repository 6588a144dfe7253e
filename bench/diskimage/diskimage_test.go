package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/bench/internal/harness"
	"github.com/rackboot/rackboot/bench/internal/httpbench"
)

// TestDownloadChecksEveryBody: each simulated host's download fails on a
// missing, short or altered image, and hashing can be turned off.
func TestDownloadChecksEveryBody(t *testing.T) {
	body := bytes.Repeat([]byte("rackboot disk image "), 200000)
	sum := sha256.Sum256(body)
	flipped := bytes.Clone(body)
	flipped[12345] ^= 0x80
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := body
		switch r.URL.Path {
		case "/missing":
			http.NotFound(w, r)
			return
		case "/short":
			b = body[:len(body)-1]
		case "/flipped":
			b = flipped
		}
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(b))
	}))
	t.Cleanup(srv.Close)
	img := image{size: int64(len(body)), sha256: hex.EncodeToString(sum[:])}
	r := download([]string{srv.URL + "/a", srv.URL + "/b", srv.URL + "/c"}, img, true).Run(t.Context())
	if r.Downloads != 3 || r.Errors != 0 || r.Bytes != 3*int64(len(body)) || r.MBps() <= 0 {
		t.Fatalf("%+v", r)
	}
	for path, want := range map[string]string{"/short": "wrong size", "/flipped": "wrong sha256", "/missing": "404"} {
		r := download([]string{srv.URL + path}, img, true).Run(t.Context())
		if r.Downloads != 0 || r.Errors != 1 || !strings.Contains(r.FirstError, want) {
			t.Errorf("%s: %+v, want %q", path, r, want)
		}
	}
	if r := download([]string{srv.URL + "/flipped"}, img, false).Run(t.Context()); r.Downloads != 1 {
		t.Errorf("-hash=false: %+v, want the body unchecked", r)
	}
}

func TestReportRatio(t *testing.T) {
	rep := newReport(options{Common: harness.Common{Command: "bench/run.sh diskimage"}, clients: 50, sizeMiB: 256, rounds: 2, hash: true, route: routeKernel},
		image{sha256: strings.Repeat("ab", 32)})
	rep.rows[0].add(run{Result: httpbench.Result{Downloads: 50, Bytes: 1e9, Seconds: 1}, cpu: time.Second})
	rep.rows[1].add(run{Result: httpbench.Result{Downloads: 50, Bytes: 1e9, Seconds: 0.8}, cpu: time.Second})
	rep.rows[1].add(run{Result: httpbench.Result{Downloads: 50, Bytes: 1e9, Seconds: 2}, cpu: time.Second})
	var b strings.Builder
	if err := rep.write(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| rackbootd | 1000 |", "| nginx | 1250 |", "**0.80×** (target ≥ 0.8×: met)", "nginx 1250, 500"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
}

// TestRootfsURLFromTheScript: the rootfs route fetches what the kernel
// line's coreos.live.rootfs_url names, and a script without it is an
// error.
func TestRootfsURLFromTheScript(t *testing.T) {
	script := "#!ipxe\ninitrd --name initrd http://a/boot/m/initrd\n" +
		"kernel http://a/boot/m/kernel initrd=initrd coreos.live.rootfs_url=http://a:8080/images/bench/rootfs.img ignition.firstboot\nboot\n"
	if u, err := rootfsURL(script); err != nil || u != "http://a:8080/images/bench/rootfs.img" {
		t.Errorf("rootfsURL = %q, %v", u, err)
	}
	if u, err := rootfsURL("#!ipxe\nkernel http://a/k console=ttyS0\nboot\n"); !errors.Is(err, errNoRootfs) {
		t.Errorf("a script without the rootfs: %q, %v", u, err)
	}
}
