package console_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/console"
	"github.com/rackboot/rackboot/engine/enginetest"
)

// browser is an HTTP client with a cookie jar that does not follow
// redirects (the tests look at them).
type browser struct {
	t  *testing.T
	b  *bed
	hc *http.Client
}

func (b *bed) browser() *browser {
	jar, err := cookiejar.New(nil)
	if err != nil {
		b.t.Fatal(err)
	}
	return &browser{t: b.t, b: b, hc: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// do sends a request (a form when form is not nil) and returns the
// answer with its body read.
func (br *browser) do(method, path string, form url.Values, hdr ...string) (*http.Response, string) {
	br.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, br.b.srv.URL+path, body)
	if err != nil {
		br.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := br.hc.Do(req)
	if err != nil {
		br.t.Fatal(err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		br.t.Fatal(err)
	}
	return res, string(data)
}

func (br *browser) signIn(token string) *http.Response {
	br.t.Helper()
	res, _ := br.do("POST", "/console/login", url.Values{"token": {token}})
	return res
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf is the CSRF token of the page at path.
func (br *browser) csrf(path string) string {
	br.t.Helper()
	res, body := br.do("GET", path, nil)
	m := csrfField.FindStringSubmatch(body)
	if res.StatusCode != 200 || m == nil {
		br.t.Fatalf("GET %s: %d, no CSRF field", path, res.StatusCode)
	}
	return m[1]
}

// A wrong token is refused with the sign-in page and no session; after
// five wrong tokens the address is refused even the right one for a
// while (429).
func TestSignInWrongTokenRefusedAndRateLimited(t *testing.T) {
	b := newBed(t)
	br := b.browser()
	for i := range 5 {
		res, body := br.do("POST", "/console/login", url.Values{"token": {"wrong-" + testAdmin}})
		if res.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "Wrong token.") || len(res.Cookies()) != 0 {
			t.Fatalf("wrong token %d: %d cookies %v", i, res.StatusCode, res.Cookies())
		}
	}
	res, body := br.do("POST", "/console/login", url.Values{"token": {testAdmin}})
	if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(body, "Too many wrong tokens") || len(res.Cookies()) != 0 {
		t.Fatalf("after five wrong tokens the right one got %d cookies %v", res.StatusCode, res.Cookies())
	}
	if res, _ := br.do("GET", "/console/", nil); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/console/login" {
		t.Errorf("not signed in: GET /console/ is %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
}

// The right token gives an HttpOnly SameSite=Strict session cookie (not
// Secure over plain HTTP); sign-out needs the CSRF token and ends it.
func TestSignInCookieAndSignOut(t *testing.T) {
	b := newBed(t)
	br := b.browser()
	res := br.signIn(testAdmin)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/console/" {
		t.Fatalf("sign-in: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	cs := res.Cookies()
	if len(cs) != 1 || !cs[0].HttpOnly || cs[0].SameSite != http.SameSiteStrictMode || cs[0].Secure ||
		cs[0].Path != "/console/" || strings.Contains(cs[0].Value, testAdmin) {
		t.Fatalf("session cookie %+v", cs)
	}
	if res, body := br.do("GET", "/console/", nil); res.StatusCode != 200 || !strings.Contains(body, "Hosts by state") {
		t.Fatalf("overview: %d", res.StatusCode)
	}
	if res, _ := br.do("POST", "/console/logout", url.Values{}); res.StatusCode != http.StatusForbidden {
		t.Errorf("sign-out without the CSRF token: %d, want 403", res.StatusCode)
	}
	csrf := br.csrf("/console/")
	if res, _ := br.do("POST", "/console/logout", url.Values{"csrf": {csrf}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-out: %d", res.StatusCode)
	}
	if res, _ := br.do("GET", "/console/hosts", nil); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/console/login" {
		t.Errorf("after sign-out: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
}

// A change without the session's CSRF token, or from another origin, is
// refused and changes nothing; with it the host is approved.
func TestChangeNeedsCSRFToken(t *testing.T) {
	b := newBed(t)
	_, ie := b.sno()
	b.newAgent(ie, hostID(1), "sno-1").poll()
	br := b.browser()
	br.signIn(testAdmin)
	path := "/console/hosts/" + ie + "/" + hostID(1)
	csrf := br.csrf(path)
	for name, try := range map[string]struct {
		form url.Values
		hdr  []string
	}{
		"no token":     {url.Values{"op": {"approve"}}, nil},
		"wrong token":  {url.Values{"op": {"approve"}, "csrf": {csrf + "x"}}, nil},
		"cross origin": {url.Values{"op": {"approve"}, "csrf": {csrf}}, []string{"Origin", "http://evil.example"}},
	} {
		if res, _ := br.do("POST", path, try.form, try.hdr...); res.StatusCode != http.StatusForbidden {
			t.Errorf("%s: %d, want 403", name, res.StatusCode)
		}
	}
	if approved(b.store, hostID(1)) {
		t.Fatal("a refused change approved the host")
	}
	if res, _ := br.do("POST", path, url.Values{"op": {"approve"}, "csrf": {csrf}}, "Origin", b.srv.URL); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("approve: %d", res.StatusCode)
	}
	if !approved(b.store, hostID(1)) {
		t.Error("approve did not approve the host")
	}
	// A bad hostname gets the API's own error on the page, and changes nothing.
	res, body := br.do("POST", path, url.Values{"op": {"hostname"}, "hostname": {"Bad_Name!"}, "csrf": {csrf}})
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, "role=\"alert\"") || !strings.Contains(body, "Bad_Name!") {
		t.Errorf("bad hostname: %d %s", res.StatusCode, body)
	}
}

func approved(s engine.Store, id string) bool {
	var ok bool
	s.Read(func(m *engine.Model) {
		h, found := m.Host(id)
		ok = found && h.Approved
	})
	return ok
}

// Every answer forbids framing and loading anything from elsewhere.
func TestSecurityHeaders(t *testing.T) {
	b := newBed(t)
	br := b.browser()
	for _, path := range []string{"/console/login", "/console/static/app.js", "/console/hosts"} {
		res, _ := br.do("GET", path, nil)
		csp := res.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "default-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") ||
			strings.Contains(csp, "unsafe-inline") || res.Header.Get("X-Frame-Options") != "DENY" ||
			res.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: CSP %q X-Frame-Options %q", path, csp, res.Header.Get("X-Frame-Options"))
		}
	}
}

// A hostname carrying markup is escaped in every page that shows it.
func TestHostnameRenderedInert(t *testing.T) {
	b := newBed(t)
	ie := b.infraEnv("lab", "")
	b.newAgent(ie, hostID(9), xssName).poll()
	br := b.browser()
	br.signIn(testAdmin)
	for _, path := range []string{"/console/hosts", "/console/infra-envs", "/console/hosts/" + ie + "/" + hostID(9)} {
		res, body := br.do("GET", path, nil)
		if res.StatusCode != 200 || strings.Contains(body, "<script>window") || strings.Contains(body, "<img src=x") ||
			!strings.Contains(body, "&lt;script&gt;window.pwned=1&lt;/script&gt;") {
			t.Errorf("%s: %d, hostname not escaped", path, res.StatusCode)
		}
	}
}

// Sign-in from the network is refused while the admin token is
// loopback-only.
func TestSignInLoopbackOnly(t *testing.T) {
	store := enginetest.NewStore()
	c, err := console.New(console.Options{API: http.NotFoundHandler(), AdminToken: testAdmin, Store: store, LoopbackOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest("POST", "/console/login", strings.NewReader(url.Values{"token": {testAdmin}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.RemoteAddr = "10.0.0.5:40000"
	rec := httptest.NewRecorder()
	c.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden || len(rec.Result().Cookies()) != 0 || !strings.Contains(rec.Body.String(), "admin_remote") {
		t.Errorf("sign-in from 10.0.0.5: %d %v", rec.Code, rec.Result().Cookies())
	}
}
