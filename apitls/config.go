package apitls

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/netip"
	"sync"
	"time"
)

// maxLeaves bounds the certificates kept for the appliance's addresses.
const maxLeaves = 64

// Config is the server configuration for self (the self-signed
// certificate, a CA of its own) and others (such as a rack certificate,
// RackCAFile): HTTP/1.1 only (the connection is not a *tls.Conn to
// net/http, which would otherwise negotiate HTTP/2 itself), TLS 1.2 at
// least.
//
// A client that asks (TLS SNI) for a name a certificate names gets that
// certificate. Otherwise a client gets self when self names the address it
// connected to, and else a certificate for that address that self signs,
// made on first use: an appliance reached at an address it did not have
// when self was made (another interface, a new lease) still verifies
// against the kubeconfig's CA, which is self. Only the connection's own
// local address is ever put in such a certificate, never a name the
// client sent.
func Config(self tls.Certificate, others ...tls.Certificate) *tls.Config {
	c := &certs{self: self, others: others, leaves: map[netip.Addr]*tls.Certificate{}, now: time.Now}
	return &tls.Config{GetCertificate: c.get, NextProtos: []string{"http/1.1"}, MinVersion: tls.VersionTLS12}
}

// certs chooses the certificate of each handshake.
type certs struct {
	self   tls.Certificate
	others []tls.Certificate
	now    func() time.Time

	mu     sync.Mutex
	leaves map[netip.Addr]*tls.Certificate
}

func (c *certs) get(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	if hello.ServerName != "" {
		for _, cert := range append([]tls.Certificate{c.self}, c.others...) {
			if hello.SupportsCertificate(&cert) == nil {
				return &cert, nil
			}
		}
	}
	addr, ok := localAddr(hello.Conn)
	if !ok || c.self.Leaf == nil || c.self.Leaf.VerifyHostname(addr.String()) == nil {
		return &c.self, nil
	}
	return c.leaf(addr)
}

// localAddr is the address the client connected to.
func localAddr(conn net.Conn) (netip.Addr, bool) {
	if conn == nil {
		return netip.Addr{}, false
	}
	tcp, ok := conn.LocalAddr().(*net.TCPAddr)
	if !ok {
		return netip.Addr{}, false
	}
	addr, ok := netip.AddrFromSlice(tcp.IP)
	return addr.Unmap(), ok
}

// leaf returns the certificate self signs for addr, made once.
func (c *certs) leaf(addr netip.Addr) (*tls.Certificate, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cert, ok := c.leaves[addr]; ok && c.now().Before(cert.Leaf.NotAfter) {
		return cert, nil
	}
	cert, err := issue(c.self, addr, c.now())
	if err != nil {
		return nil, err
	}
	if len(c.leaves) >= maxLeaves {
		clear(c.leaves)
	}
	c.leaves[addr] = cert
	return cert, nil
}

// issue makes a certificate for addr signed by ca, valid as long as ca is.
func issue(ca tls.Certificate, addr netip.Addr, now time.Time) (*tls.Certificate, error) {
	if ca.Leaf == nil || !ca.Leaf.IsCA {
		return nil, errors.New("apitls: the API certificate cannot sign")
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("apitls: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, fmt.Errorf("apitls: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: addr.String(), Organization: []string{"rackboot"}},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     ca.Leaf.NotAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{addr.AsSlice()},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Leaf, &key.PublicKey, ca.PrivateKey)
	if err != nil {
		return nil, fmt.Errorf("apitls: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("apitls: %w", err)
	}
	return &tls.Certificate{Certificate: [][]byte{der, ca.Certificate[0]}, PrivateKey: key, Leaf: leaf}, nil
}
