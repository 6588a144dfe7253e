package rackca

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"time"
)

// Identity is what one appliance needs for the mutual TLS between
// appliances: the rack CA it trusts and its own certificate and key.
type Identity struct {
	// NodeID is the node id its certificate names.
	NodeID string
	// Cert is its certificate and key.
	Cert tls.Certificate
	// Roots holds the rack CA.
	Roots *x509.CertPool
	// CA is the rack CA certificate.
	CA *x509.Certificate
}

// NewIdentity checks a node certificate and key (PEM) against the rack CA
// (PEM) and returns the identity they make.
func NewIdentity(caPEM, certPEM, keyPEM []byte, now time.Time) (*Identity, error) {
	ca, err := parseCert(caPEM)
	if err != nil {
		return nil, fmt.Errorf("rack CA: %w", err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("%w: node certificate and key: %w", ErrIdentity, err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	id := &Identity{Cert: pair, Roots: roots, CA: ca}
	nodeID, err := id.Verify(pair.Certificate, now)
	if err != nil {
		return nil, fmt.Errorf("node certificate: %w", err)
	}
	id.NodeID = nodeID
	return id, nil
}

// LoadIdentity reads the rack CA, the node certificate and its key from
// files and checks them as NewIdentity does.
func LoadIdentity(caPath, certPath, keyPath string) (*Identity, error) {
	var pems [3][]byte
	for i, p := range []string{caPath, certPath, keyPath} {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("rackca: %w", err)
		}
		pems[i] = b
	}
	return NewIdentity(pems[0], pems[1], pems[2], time.Now())
}

// Verify checks a peer's certificate chain (leaf first, DER) against the
// rack CA and returns the node id the leaf names.
func (id *Identity) Verify(rawCerts [][]byte, now time.Time) (string, error) {
	if len(rawCerts) == 0 {
		return "", fmt.Errorf("%w: no certificate", ErrIdentity)
	}
	certs := make([]*x509.Certificate, len(rawCerts))
	for i, raw := range rawCerts {
		c, err := x509.ParseCertificate(raw)
		if err != nil {
			return "", fmt.Errorf("%w: %w", ErrIdentity, err)
		}
		certs[i] = c
	}
	inter := x509.NewCertPool()
	for _, c := range certs[1:] {
		inter.AddCert(c)
	}
	_, err := certs[0].Verify(x509.VerifyOptions{
		Roots:         id.Roots,
		Intermediates: inter,
		CurrentTime:   now,
		KeyUsages:     []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth},
	})
	if err != nil {
		return "", fmt.Errorf("%w: certificate %q is not from this rack's CA: %w", ErrIdentity, certs[0].Subject.CommonName, err)
	}
	return NodeID(certs[0])
}
