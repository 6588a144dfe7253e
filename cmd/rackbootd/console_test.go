package main

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
)

// TestConsoleOverview: rackbootd serves the web console on its HTTP
// port; signed in with the admin token, the overview shows this appliance
// as the rack's only member and leader, and a banner after a failed
// reload.
func TestConsoleOverview(t *testing.T) {
	d := startDaemon(t)
	d.waitNote("READY=1")
	d.writeConfig(d.configText("console=ttyS2 ; shell", "vmlinuz"))
	if st := d.reload(); !strings.Contains(st, "reload failed") {
		t.Fatalf("reload: %q", st)
	}
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Jar: jar}
	res, err := hc.PostForm("http://"+d.httpAddr+"/console/login", url.Values{"token": {d.adminToken()}})
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil || res.StatusCode != http.StatusOK || res.Request.URL.Path != "/console/" {
		t.Fatalf("sign-in: %d at %s: %v\n%s", res.StatusCode, res.Request.URL.Path, err, body)
	}
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
		t.Errorf("CSP %q", csp)
	}
	page := string(body)
	for _, want := range []string{"The last configuration reload failed", "<dd>leader</dd>", "<dt>Raft health</dt><dd>ok</dd>"} {
		if !strings.Contains(page, want) {
			t.Errorf("overview lacks %q:\n%s", want, page)
		}
	}
	d.stop()
}
