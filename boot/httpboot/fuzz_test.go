package httpboot

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// FuzzRequestPath sends arbitrary request paths to the handler: it must
// never panic, answer only with the codes the layout allows, and never serve
// a file from outside the iPXE root or a hidden one.
func FuzzRequestPath(f *testing.F) {
	for _, seed := range []string{
		"/boot.ipxe", "/boot/52-54-00-00-00-01/script.ipxe", "/boot/52:54:00:00:00:99/initrd",
		"/boot/52-54-00-00-00-01/kernel", "/boot/zz/initrd", "/boot//kernel", "/ipxe/undionly.kpxe",
		"/ipxe/../secret", "/ipxe/..%2fsecret", "/ipxe/.hidden", "/ipxe/sub%2Finner", "/ipxe/%00",
		"/boot/52-54-00-00-00-01/../../secret", "//ipxe/ipxe.efi", "/boot/%35%32-54-00-00-00-01/script.ipxe",
		"/images/os-1/disk.img", "/images/..%2f..%2fsecret/disk.img", "/images/os-1/../../secret", "/images/%2e%2e/disk.img",
	} {
		f.Add(seed)
	}
	e := newEnv(f, 1001, true)
	h := e.srv.Config.Handler
	f.Fuzz(func(t *testing.T, path string) {
		u, err := url.ParseRequestURI(path)
		if err != nil || u.Host != "" || !strings.HasPrefix(path, "/") {
			return
		}
		req := &http.Request{Method: http.MethodGet, URL: u, RequestURI: path, Header: http.Header{}, Host: "10.99.0.1:8080", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		switch rec.Code {
		case http.StatusOK, http.StatusMovedPermanently, http.StatusTemporaryRedirect, http.StatusPermanentRedirect,
			http.StatusBadRequest, http.StatusNotFound:
		default:
			t.Fatalf("GET %q: unexpected status %d %q", path, rec.Code, rec.Body)
		}
		if strings.Contains(rec.Body.String(), secret) && !strings.Contains(u.Path, secret) {
			t.Fatalf("GET %q served a file from outside the root or a hidden one", path)
		}
	})
}
