package apitls_test

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rackboot/rackboot/apitls"
	"github.com/rackboot/rackboot/cluster/rackca"
)

// With a node certificate of the rack CA, the listener serves it to a
// client asking for rackca.APIServerName (verified against the rack CA,
// whatever address it dialled) and the self-signed one otherwise; the
// rack CA is written for rackbootctl kubeconfig, and removed when there
// is no rack certificate.
func TestRackCert(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	self, selfPEM, err := apitls.LoadOrCreate(dir, nil, now)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := rackca.New(now)
	if err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM, err := ca.Issue("n1", now)
	if err != nil {
		t.Fatal(err)
	}
	node, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	rack, ok, err := apitls.RackCert(dir, node, ca.Cert.Raw, rackca.APIServerName)
	if err != nil || !ok {
		t.Fatalf("RackCert: %v %v", ok, err)
	}
	written, err := os.ReadFile(filepath.Join(dir, apitls.RackCAFile))
	if err != nil || string(written) != string(ca.CertPEM()) {
		t.Fatalf("%s: %v, want the rack CA", apitls.RackCAFile, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { _ = tls.Server(c, apitls.Config(self, rack)).Handshake(); c.Close() }()
		}
	}()
	pool := func(pem []byte) *x509.CertPool {
		p := x509.NewCertPool()
		p.AppendCertsFromPEM(pem)
		return p
	}
	dial := func(cfg *tls.Config) error {
		c, err := tls.Dial("tcp", ln.Addr().String(), cfg)
		if err == nil {
			c.Close()
		}
		return err
	}
	if err := dial(&tls.Config{RootCAs: pool(ca.CertPEM()), ServerName: rackca.APIServerName}); err != nil {
		t.Errorf("the rack name against the rack CA: %v", err)
	}
	if err := dial(&tls.Config{RootCAs: pool(selfPEM), ServerName: "127.0.0.1"}); err != nil {
		t.Errorf("the address against the self-signed certificate: %v", err)
	}
	if err := dial(&tls.Config{RootCAs: pool(ca.CertPEM()), ServerName: "127.0.0.1"}); err == nil {
		t.Error("the address verified against the rack CA: the rack certificate was served without its name")
	}
	if _, ok, err := apitls.RackCert(dir, self, nil, rackca.APIServerName); ok || err != nil {
		t.Fatalf("RackCert without a rack: %v %v", ok, err)
	}
	if _, err := os.Stat(filepath.Join(dir, apitls.RackCAFile)); !os.IsNotExist(err) {
		t.Errorf("%s kept without a rack certificate: %v", apitls.RackCAFile, err)
	}
}
