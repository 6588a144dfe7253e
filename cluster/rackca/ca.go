package rackca

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"time"
)

// Errors of the package.
var (
	// ErrNodeID: a node id that is empty, too long or holds a character
	// other than letters, digits, '.', '_' and '-'.
	ErrNodeID = errors.New("rackca: invalid node id")
	// ErrIdentity: a certificate or key that is not a usable rack identity
	// (not PEM, not signed by the rack CA, naming no node id, key not
	// matching).
	ErrIdentity = errors.New("rackca: bad identity")
)

// Validity of what the package issues.
const (
	caValidity   = 20 * 365 * 24 * time.Hour
	nodeValidity = 10 * 365 * 24 * time.Hour
	// backdate covers clocks of appliances a little behind the issuer's.
	backdate = time.Hour
)

// uriScheme and uriHost form a node's SAN URI: rackboot://node/<id>.
const (
	uriScheme = "rackboot"
	uriHost   = "node"
)

// APIServerName is the DNS name every node certificate carries besides
// its node id: rackbootd serves its HTTPS API with the node certificate to
// a client asking for that name (TLS SNI), so one kubeconfig with the rack
// CA and `tls-server-name: rackboot-api` works against every appliance of
// the rack, whichever address it names.
const APIServerName = "rackboot-api"

// maxNodeID is the longest node id.
const maxNodeID = 64

// CheckNodeID reports whether id can be a node id.
func CheckNodeID(id string) error {
	if id == "" || len(id) > maxNodeID {
		return fmt.Errorf("%w: %q: 1 to %d characters", ErrNodeID, id, maxNodeID)
	}
	for _, r := range id {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-'
		if !ok {
			return fmt.Errorf("%w: %q: letters, digits, '.', '_' and '-' only", ErrNodeID, id)
		}
	}
	return nil
}

// CA is the rack CA: its certificate and private key.
type CA struct {
	Cert *x509.Certificate
	Key  *ecdsa.PrivateKey
}

// New creates a CA valid from now.
func New(now time.Time) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("rackca: generate CA key: %w", err)
	}
	serial, err := serialNumber()
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "rackboot rack CA " + serial.Text(16)[:8]},
		NotBefore:             now.Add(-backdate),
		NotAfter:              now.Add(caValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("rackca: create CA certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("rackca: %w", err)
	}
	return &CA{Cert: cert, Key: key}, nil
}

// Issue returns a certificate (PEM) for node id signed by the CA, and its
// new private key (PEM).
func (ca *CA) Issue(id string, now time.Time) (certPEM, keyPEM []byte, err error) {
	if err := CheckNodeID(id); err != nil {
		return nil, nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("rackca: generate node key: %w", err)
	}
	serial, err := serialNumber()
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: id},
		URIs:         []*url.URL{nodeURI(id)},
		DNSNames:     []string{APIServerName},
		NotBefore:    now.Add(-backdate),
		NotAfter:     now.Add(nodeValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.Key)
	if err != nil {
		return nil, nil, fmt.Errorf("rackca: create node certificate: %w", err)
	}
	keyPEM, err = encodeKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pemBlock("CERTIFICATE", der), keyPEM, nil
}

// CertPEM is the CA certificate in PEM.
func (ca *CA) CertPEM() []byte { return pemBlock("CERTIFICATE", ca.Cert.Raw) }

// KeyPEM is the CA private key in PEM.
func (ca *CA) KeyPEM() ([]byte, error) { return encodeKey(ca.Key) }

// Parse reads a CA from its certificate and key PEM.
func Parse(certPEM, keyPEM []byte) (*CA, error) {
	cert, err := parseCert(certPEM)
	if err != nil {
		return nil, err
	}
	if !cert.IsCA {
		return nil, fmt.Errorf("%w: %s is not a CA certificate", ErrIdentity, cert.Subject.CommonName)
	}
	key, err := parseKey(keyPEM)
	if err != nil {
		return nil, err
	}
	if !key.PublicKey.Equal(cert.PublicKey) {
		return nil, fmt.Errorf("%w: the CA key does not match the CA certificate", ErrIdentity)
	}
	return &CA{Cert: cert, Key: key}, nil
}

// NodeID returns the node id a certificate names in its SAN URI.
func NodeID(cert *x509.Certificate) (string, error) {
	for _, u := range cert.URIs {
		if u.Scheme == uriScheme && u.Host == uriHost && len(u.Path) > 1 {
			id := u.Path[1:]
			if err := CheckNodeID(id); err != nil {
				return "", fmt.Errorf("%w: certificate %q: %w", ErrIdentity, cert.Subject.CommonName, err)
			}
			return id, nil
		}
	}
	return "", fmt.Errorf("%w: certificate %q names no node id (SAN URI %s://%s/<id>)",
		ErrIdentity, cert.Subject.CommonName, uriScheme, uriHost)
}

func nodeURI(id string) *url.URL {
	return &url.URL{Scheme: uriScheme, Host: uriHost, Path: "/" + id}
}

func serialNumber() (*big.Int, error) {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, fmt.Errorf("rackca: serial number: %w", err)
	}
	return n.Add(n, big.NewInt(1)), nil
}

func pemBlock(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

func encodeKey(key *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("rackca: encode key: %w", err)
	}
	return pemBlock("PRIVATE KEY", der), nil
}

func parseCert(b []byte) (*x509.Certificate, error) {
	blk, _ := pem.Decode(b)
	if blk == nil || blk.Type != "CERTIFICATE" {
		return nil, fmt.Errorf("%w: no PEM CERTIFICATE block", ErrIdentity)
	}
	cert, err := x509.ParseCertificate(blk.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrIdentity, err)
	}
	return cert, nil
}

func parseKey(b []byte) (*ecdsa.PrivateKey, error) {
	blk, _ := pem.Decode(b)
	if blk == nil {
		return nil, fmt.Errorf("%w: no PEM private key block", ErrIdentity)
	}
	var key any
	var err error
	switch blk.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(blk.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(blk.Bytes)
	default:
		return nil, fmt.Errorf("%w: PEM block %q is not a private key", ErrIdentity, blk.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: private key: %w", ErrIdentity, err)
	}
	ec, ok := key.(*ecdsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("%w: private key is %T, want ECDSA", ErrIdentity, key)
	}
	return ec, nil
}
