package apitls_test

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"testing"
	"time"

	"github.com/rackboot/rackboot/apitls"
)

// serveTLS answers TLS handshakes on addr with cfg until the test ends.
func serveTLS(t *testing.T, addr string, cfg *tls.Config) string {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { _ = tls.Server(c, cfg).Handshake(); c.Close() }()
		}
	}()
	return ln.Addr().String()
}

// peer dials addr trusting only caPEM and returns the certificates served.
func peer(t *testing.T, addr string, caPEM []byte) []*x509.Certificate {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	host, _, _ := net.SplitHostPort(addr)
	c, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pool, ServerName: host})
	if err != nil {
		t.Fatalf("%s against the self-signed certificate: %v", addr, err)
	}
	defer c.Close()
	return c.ConnectionState().PeerCertificates
}

// An appliance reached at an address its self-signed certificate does not
// name (here 127.0.0.2; the certificate names 127.0.0.1) serves a
// certificate for that address, signed by the self-signed one, so a
// kubeconfig naming the self-signed certificate as its CA verifies it;
// the address it names gets the self-signed certificate itself. The
// certificate made for an address is made once.
func TestAddressNotNamedGetsSignedCertificate(t *testing.T) {
	self, selfPEM, err := apitls.LoadOrCreate(t.TempDir(), nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	cfg := apitls.Config(self)
	other := serveTLS(t, "127.0.0.2:0", cfg)
	first := peer(t, other, selfPEM)
	if len(first) != 2 || !first[0].IPAddresses[0].Equal(net.ParseIP("127.0.0.2")) {
		t.Fatalf("at 127.0.0.2 got %d certificates, first naming %v; want one for 127.0.0.2 and the CA", len(first), first[0].IPAddresses)
	}
	if again := peer(t, other, selfPEM); again[0].SerialNumber.Cmp(first[0].SerialNumber) != 0 {
		t.Error("a second connection got a new certificate for the same address")
	}
	named := peer(t, serveTLS(t, "127.0.0.1:0", cfg), selfPEM)
	if len(named) != 1 || !named[0].Equal(self.Leaf) {
		t.Errorf("at 127.0.0.1 got %d certificates, want the self-signed one alone", len(named))
	}
}
