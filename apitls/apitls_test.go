package apitls_test

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rackboot/rackboot/apitls"
)

// The certificate is made once, kept (0600 key), and made again when the
// advertised address changes.
func TestLoadOrCreate(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	_, pem1, err := apitls.LoadOrCreate(dir, []string{"10.0.0.5"}, now)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, apitls.KeyFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", fi, err)
	}
	_, pem2, err := apitls.LoadOrCreate(dir, []string{"10.0.0.5"}, now)
	if err != nil || string(pem1) != string(pem2) {
		t.Fatalf("second start made another certificate (%v)", err)
	}
	_, pem3, err := apitls.LoadOrCreate(dir, []string{"10.0.0.6"}, now)
	if err != nil || string(pem3) == string(pem1) {
		t.Fatalf("a new address kept the old certificate (%v)", err)
	}
}

// One port serves HTTPS (verified against the certificate as the CA) and
// plain HTTP.
func TestListenerServesBoth(t *testing.T) {
	cert, pem, err := apitls.LoadOrCreate(t.TempDir(), nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") })}
	go srv.Serve(apitls.Listener(ln, apitls.Config(cert)))
	t.Cleanup(func() { srv.Close() })
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	tlsClient := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	for name, c := range map[string]struct {
		client *http.Client
		url    string
	}{
		"https": {tlsClient, "https://" + ln.Addr().String() + "/"},
		"http":  {http.DefaultClient, "http://" + ln.Addr().String() + "/"},
	} {
		resp, err := c.client.Get(c.url)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != "ok" {
			t.Errorf("%s: %q", name, b)
		}
	}
}
