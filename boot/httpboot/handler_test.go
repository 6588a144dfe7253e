package httpboot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/boot"
	"github.com/rackboot/rackboot/boot/ignition"
)

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func TestScripts(t *testing.T) {
	e := newEnv(t, 1001, true)
	for _, tc := range []struct{ path, golden string }{
		{"/boot.ipxe", "chain.ipxe"},
		{"/boot/52-54-00-00-00-01/script.ipxe", "reserved.ipxe"},
		{"/boot/52:54:00:00:00:01/script.ipxe", "reserved.ipxe"},
		{"/boot/52-54-00-00-00-99/script.ipxe", "stranger.ipxe"},
		{"/boot/52-54-00-AB-CD-EF/script.ipxe", "upper.ipxe"},
	} {
		resp, body := e.do(t, "GET", tc.path, nil)
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
			t.Fatalf("GET %s = %s %q", tc.path, resp.Status, body)
		}
		golden(t, tc.golden, body)
	}
}

func TestInitrdCarriesHostname(t *testing.T) {
	e := newEnv(t, 1001, true)
	for _, tc := range []struct{ mac, hostname string }{{reserved, "master-0"}, {known, "master-1"}, {stranger, ""}} {
		path := "/boot/" + strings.ReplaceAll(tc.mac, ":", "-") + "/initrd"
		resp, body := e.do(t, "GET", path, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s = %s", path, resp.Status)
		}
		if !bytes.Equal(body[:len(e.initrdData)], e.initrdData) {
			t.Fatalf("%s does not start with the base initrd", path)
		}
		ign := configIgn(t, body, len(e.initrdData))
		if _, err := ignition.Parse(ign); err != nil {
			t.Fatalf("config.ign of %s: %v", tc.mac, err)
		}
		hasName := bytes.Contains(ign, []byte("/etc/hostname"))
		if tc.hostname != "" && (!hasName || !bytes.Contains(ign, []byte("data:,"+tc.hostname+"%0A"))) || tc.hostname == "" && hasName {
			t.Errorf("config.ign of %s = %s, want hostname %q", tc.mac, ign, tc.hostname)
		}
		if !bytes.Contains(ign, []byte("/etc/motd")) {
			t.Errorf("config.ign of %s lost the profile's files: %s", tc.mac, ign)
		}
	}
}

func TestKernel(t *testing.T) {
	e := newEnv(t, 1001, true)
	resp, body := e.do(t, "GET", "/boot/52-54-00-00-00-99/kernel", nil)
	if resp.StatusCode != http.StatusOK || !bytes.Equal(body, e.kernelData) || resp.Header.Get("ETag") == "" {
		t.Fatalf("kernel: %s, %d bytes, ETag %q", resp.Status, len(body), resp.Header.Get("ETag"))
	}
	resp, body = e.do(t, "GET", "/boot/52-54-00-00-00-99/kernel", map[string]string{"If-None-Match": resp.Header.Get("ETag")})
	if resp.StatusCode != http.StatusNotModified || len(body) != 0 {
		t.Errorf("If-None-Match: %s, %d bytes", resp.Status, len(body))
	}
	resp, body = e.do(t, "GET", "/boot/52-54-00-00-00-99/kernel", map[string]string{"Range": "bytes=99990-"})
	if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(body, e.kernelData[99990:]) {
		t.Errorf("kernel tail range: %s, %d bytes", resp.Status, len(body))
	}
}

func TestInitrdRangeHeadETag(t *testing.T) {
	e := newEnv(t, 1001, true)
	path := "/boot/52-54-00-00-00-01/initrd"
	resp, full := e.do(t, "GET", path, nil)
	etag := resp.Header.Get("ETag")
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(etag, `"`) || resp.Header.Get("Accept-Ranges") != "bytes" {
		t.Fatalf("GET: %s ETag %q Accept-Ranges %q", resp.Status, etag, resp.Header.Get("Accept-Ranges"))
	}
	n := len(full)
	for _, rg := range [][2]int{{990, 1010}, {0, 0}, {1000, 1003}, {1001, 1004}, {n - 5, n - 1}, {0, n - 1}} {
		resp, body := e.do(t, "GET", path, map[string]string{"Range": fmt.Sprintf("bytes=%d-%d", rg[0], rg[1])})
		if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(body, full[rg[0]:rg[1]+1]) {
			t.Errorf("Range %v: %s, got %d bytes, want the exact slice", rg, resp.Status, len(body))
		}
	}
	resp, body := e.do(t, "GET", path, map[string]string{"Range": "bytes=-7"})
	if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(body, full[n-7:]) {
		t.Errorf("suffix range: %s", resp.Status)
	}
	resp, _ = e.do(t, "GET", path, map[string]string{"Range": fmt.Sprintf("bytes=%d-", n+10)})
	if resp.StatusCode != http.StatusRequestedRangeNotSatisfiable {
		t.Errorf("range past the end: %s", resp.Status)
	}
	resp, body = e.do(t, "HEAD", path, nil)
	if resp.StatusCode != http.StatusOK || len(body) != 0 || resp.ContentLength != int64(n) || resp.Header.Get("ETag") != etag {
		t.Errorf("HEAD: %s, length %d (want %d), body %d, ETag %q", resp.Status, resp.ContentLength, n, len(body), resp.Header.Get("ETag"))
	}
	resp, body = e.do(t, "GET", path, map[string]string{"If-None-Match": etag})
	if resp.StatusCode != http.StatusNotModified || len(body) != 0 {
		t.Errorf("If-None-Match: %s", resp.Status)
	}
	resp, body = e.do(t, "GET", path, map[string]string{"If-Range": `"stale"`, "Range": "bytes=0-9"})
	if resp.StatusCode != http.StatusOK || len(body) != n {
		t.Errorf("If-Range with a stale tag should send everything: %s, %d bytes", resp.Status, len(body))
	}
	if other := e.etag(t, "/boot/52-54-00-00-00-02/initrd"); other == etag {
		t.Error("two hosts with different config.ign share an ETag")
	}
	if again := e.etag(t, path); again != etag {
		t.Error("the ETag changed between identical requests")
	}
}

func (e *env) etag(t *testing.T, path string) string {
	resp, _ := e.do(t, "HEAD", path, nil)
	return resp.Header.Get("ETag")
}

func TestUnknownMACWithoutDefault(t *testing.T) {
	e := newEnv(t, 1001, false)
	for _, what := range []string{"script.ipxe", "kernel", "initrd"} {
		resp, body := e.do(t, "GET", "/boot/52-54-00-00-00-99/"+what, nil)
		if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), "52:54:00:00:00:99") || !strings.Contains(string(body), "no default profile") {
			t.Errorf("%s for a stranger: %s %q", what, resp.Status, body)
		}
	}
	if resp, _ := e.do(t, "GET", "/boot/52-54-00-00-00-01/script.ipxe", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("the listed MAC: %s", resp.Status)
	}
}

func TestMalformedMAC(t *testing.T) {
	e := newEnv(t, 1001, true)
	for _, mac := range []string{"52-54-00-00-00", "zz-54-00-00-00-01", "52:54-00:00:00:01", "5254.0000.0001", "%00"} {
		resp, body := e.do(t, "GET", "/boot/"+mac+"/initrd", nil)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "malformed MAC") {
			t.Errorf("MAC %q: %s %q", mac, resp.Status, body)
		}
	}
}

func TestIPXEBinaries(t *testing.T) {
	e := newEnv(t, 1001, true)
	resp, body := e.do(t, "GET", "/ipxe/undionly.kpxe", nil)
	if resp.StatusCode != http.StatusOK || string(body) != "undionly" {
		t.Fatalf("undionly.kpxe: %s %q", resp.Status, body)
	}
	if resp, body := e.do(t, "GET", "/ipxe/ipxe.efi", map[string]string{"Range": "bytes=10-19"}); resp.StatusCode != http.StatusPartialContent || len(body) != 10 {
		t.Errorf("ipxe.efi range: %s %d bytes", resp.Status, len(body))
	}
	for _, p := range []string{"/ipxe/../secret", "/ipxe/..%2fsecret", "/ipxe/..%2F..%2Fsecret", "/ipxe/%2e%2e/secret", "/ipxe/.hidden", "/ipxe/sub", "/ipxe/sub/inner", "/ipxe/sub%2finner", "/ipxe/", "/ipxe/nope.efi", "/ipxe/..\\secret"} {
		resp, body := e.do(t, "GET", p, nil)
		if resp.StatusCode != http.StatusNotFound || strings.Contains(string(body), secret) {
			t.Errorf("GET %s = %s %q: want 404 without the file", p, resp.Status, body)
		}
	}
}

func TestReloadSwapsCatalog(t *testing.T) {
	e := newEnv(t, 1001, true)
	if resp, _ := e.do(t, "GET", "/boot/52-54-00-00-00-99/script.ipxe", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("before reload: %s", resp.Status)
	}
	cat, err := boot.NewCatalog([]boot.Profile{{Name: "only", Kernel: e.kernel, Initrd: e.initrd, Cmdline: "quiet", MACs: []net.HardwareAddr{parseMAC(t, reserved)}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.holder.Swap(cat)
	if resp, _ := e.do(t, "GET", "/boot/52-54-00-00-00-99/script.ipxe", nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("after removing the default profile the stranger gets %s", resp.Status)
	}
	if _, body := e.do(t, "GET", "/boot/52-54-00-00-00-01/script.ipxe", nil); !strings.Contains(string(body), "initrd=initrd quiet\n") {
		t.Errorf("after reload: %q", body)
	}
}

// fixed is a Chooser that always answers the same.
type fixed struct {
	ch  boot.Choice
	err error
}

func (f fixed) Choose(context.Context, net.HardwareAddr) (boot.Choice, error) { return f.ch, f.err }

func TestExitAndBrokenChooser(t *testing.T) {
	for _, tc := range []struct {
		chooser Chooser
		status  int
		golden  string
	}{
		{fixed{ch: boot.Choice{Action: boot.ActionExit}}, http.StatusOK, "exit.ipxe"},
		{fixed{err: errors.New("store unreachable")}, http.StatusInternalServerError, ""},
		{fixed{ch: boot.Choice{Action: boot.ActionBoot, Cmdline: "x ${evil}"}}, http.StatusInternalServerError, ""},
	} {
		h, err := New(Options{BaseURL: "http://10.99.0.1:8080", Boot: tc.chooser})
		if err != nil {
			t.Fatal(err)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/boot/52-54-00-00-00-01/script.ipxe", nil))
		if rec.Code != tc.status || strings.Contains(rec.Body.String(), "unreachable") || strings.Contains(rec.Body.String(), "evil") {
			t.Errorf("%+v: %d %q", tc.chooser, rec.Code, rec.Body)
		}
		if tc.golden != "" {
			golden(t, tc.golden, rec.Body.Bytes())
		}
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	for _, o := range []Options{{BaseURL: "http://x/", Boot: fixed{}}, {BaseURL: "http://x\nshell", Boot: fixed{}}, {BaseURL: "http://x"}} {
		if _, err := New(o); !errors.Is(err, ErrOptions) {
			t.Errorf("New(%+v) = %v, want ErrOptions", o, err)
		}
	}
}

func TestRequestLogNamesMAC(t *testing.T) {
	e := newEnv(t, 1001, true)
	e.do(t, "GET", "/boot/52-54-00-00-00-02/kernel", nil)
	// The line is written once the handler returns, which can be after the
	// client has the whole response: wait for it, up to a deadline.
	has := func(logs string) bool {
		return strings.Contains(logs, `"mac":"52:54:00:00:00:02"`) && strings.Contains(logs, `"status":200`)
	}
	deadline := time.After(10 * time.Second)
	for logs := e.logs.String(); !has(logs); logs = e.logs.String() {
		select {
		case <-deadline:
			t.Fatalf("request log lacks mac or status:\n%s", logs)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func TestMissingFileAfterLoad(t *testing.T) {
	e := newEnv(t, 1001, true)
	if err := os.Remove(e.initrd); err != nil {
		t.Fatal(err)
	}
	resp, body := e.do(t, "GET", "/boot/52-54-00-00-00-99/initrd", nil)
	if resp.StatusCode != http.StatusInternalServerError || strings.Contains(string(body), e.dir) {
		t.Errorf("removed initrd: %s %q (paths must not leak)", resp.Status, body)
	}
	if !strings.Contains(e.logs.String(), "boot file unavailable") {
		t.Error("the failure was not logged")
	}
}
