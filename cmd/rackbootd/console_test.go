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
	_, page := consoleSignIn(t, d, d.adminToken())
	for _, want := range []string{"The last configuration reload failed", "<dd>leader</dd>", "<dt>Raft health</dt><dd>ok</dd>"} {
		if !strings.Contains(page, want) {
			t.Errorf("overview lacks %q:\n%s", want, page)
		}
	}
	d.stop()
}

// consoleSignIn signs in to d's console with token and returns the
// client holding the session and the overview page it lands on.
func consoleSignIn(t *testing.T, d *testDaemon, token string) (*http.Client, string) {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Jar: jar}
	res, err := hc.PostForm("http://"+d.httpAddr+"/console/login", url.Values{"token": {token}})
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil || res.StatusCode != http.StatusOK || res.Request.URL.Path != "/console/" {
		t.Fatalf("sign-in on %s: %d at %s: %v\n%s", d.httpAddr, res.StatusCode, res.Request.URL.Path, err, body)
	}
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
		t.Errorf("CSP %q", csp)
	}
	return hc, string(body)
}

// consolePage returns the console page at path as hc sees it.
func consolePage(t *testing.T, hc *http.Client, d *testDaemon, path string) string {
	t.Helper()
	res, err := hc.Get("http://" + d.httpAddr + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s on %s: %d %v\n%s", path, d.httpAddr, res.StatusCode, err, body)
	}
	return string(body)
}

// TestConsoleOnEveryAppliance: each appliance of a rack of three serves
// the console with the rack's admin token; each overview names itself
// leader or follower, lists the three members with one leader, and an
// infra-env created through one appliance is on every appliance's page.
func TestConsoleOnEveryAppliance(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three rackbootd processes")
	}
	ds := rackDaemons(t, 3)
	leader, followers := rackRoles(t, ds)
	code, b := followers[0].admin("POST", "/api/assisted-install/v2/infra-envs",
		map[string]any{"name": "rack-console", "pull_secret": `{"auths":{}}`})
	if code != http.StatusCreated {
		t.Fatalf("create infra-env through a follower: %d %s", code, b)
	}
	tok := ds[0].adminToken()
	for _, d := range ds {
		hc, page := consoleSignIn(t, d, tok)
		role := "<dd>follower</dd>"
		if d == leader {
			role = "<dd>leader</dd>"
		}
		if !strings.Contains(page, "<dt>This appliance</dt>"+role) {
			t.Errorf("%s overview does not say %s", d.httpAddr, role)
		}
		for _, member := range []string{"<td>n1</td>", "<td>n2</td>", "<td>n3</td>"} {
			if !strings.Contains(page, member) {
				t.Errorf("%s overview does not list member %s", d.httpAddr, member)
			}
		}
		if n := strings.Count(page, "<td>leader</td>"); n != 1 {
			t.Errorf("%s overview lists %d leaders", d.httpAddr, n)
		}
		if ies := consolePage(t, hc, d, "/console/infra-envs"); !strings.Contains(ies, "rack-console") {
			t.Errorf("%s infra-envs page lacks the infra-env created through %s", d.httpAddr, followers[0].httpAddr)
		}
	}
}
