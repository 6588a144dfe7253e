package apitls_test

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
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

// countingListener hands out connections that count the ReadFrom calls
// they receive (the path net/http takes to sendfile(2) a file body).
type countingListener struct {
	net.Listener
	calls *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return countingConn{c.(*net.TCPConn), l.calls}, nil
}

type countingConn struct {
	*net.TCPConn
	calls *atomic.Int64
}

func (c countingConn) ReadFrom(r io.Reader) (int64, error) {
	c.calls.Add(1)
	return c.TCPConn.ReadFrom(r)
}

// A file served over plain HTTP reaches the TCP connection's ReadFrom
// (sendfile, as without the listener: the boot files, disk images and
// live rootfs), and one served over HTTPS never does (the bytes must go
// through TLS); both arrive whole.
func TestListenerSendsFilesWithTheKernel(t *testing.T) {
	cert, pem, err := apitls.LoadOrCreate(t.TempDir(), nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	body := bytes.Repeat([]byte("rackboot rootfs "), 1<<16)
	path := filepath.Join(t.TempDir(), "rootfs.img")
	if err := os.WriteFile(path, body, 0o644); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int64
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.ServeFile(w, r, path) })}
	go srv.Serve(apitls.Listener(countingListener{ln, &calls}, apitls.Config(cert)))
	t.Cleanup(func() { srv.Close() })
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	get := func(c *http.Client, url string) []byte {
		resp, err := c.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return b
	}
	if b := get(&http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}, "https://"+ln.Addr().String()+"/"); !bytes.Equal(b, body) {
		t.Errorf("https: %d bytes, want %d", len(b), len(body))
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("https: the raw connection's ReadFrom was called %d times: the body would bypass TLS", n)
	}
	if b := get(http.DefaultClient, "http://"+ln.Addr().String()+"/"); !bytes.Equal(b, body) {
		t.Errorf("http: %d bytes, want %d", len(b), len(body))
	}
	if calls.Load() == 0 {
		t.Error("http: the file was copied in user space, not handed to the TCP connection's ReadFrom (sendfile)")
	}
}
