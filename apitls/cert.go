package apitls

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// File names under data_dir.
const (
	CertFile = "api.crt"
	KeyFile  = "api.key"
)

// validity of a made certificate.
const validity = 10 * 365 * 24 * time.Hour

// LoadOrCreate returns the certificate in dir, making a new self-signed
// one when there is none or when it does not name every one of hosts (IP
// addresses or DNS names; loopback and localhost are always named). It
// returns the certificate's PEM too.
func LoadOrCreate(dir string, hosts []string, now time.Time) (tls.Certificate, []byte, error) {
	hosts = append(slices.Clone(hosts), "127.0.0.1", "::1", "localhost")
	certPath, keyPath := filepath.Join(dir, CertFile), filepath.Join(dir, KeyFile)
	certPEM, err := os.ReadFile(certPath)
	if err == nil {
		keyPEM, kerr := os.ReadFile(keyPath)
		if kerr != nil {
			return tls.Certificate{}, nil, fmt.Errorf("apitls: %w", kerr)
		}
		c, perr := tls.X509KeyPair(certPEM, keyPEM)
		if perr != nil {
			return tls.Certificate{}, nil, fmt.Errorf("apitls: %s: %w", certPath, perr)
		}
		if names(c.Leaf, hosts) && now.Before(c.Leaf.NotAfter) {
			return c, certPEM, nil
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return tls.Certificate{}, nil, fmt.Errorf("apitls: %w", err)
	}
	certPEM, keyPEM, err := create(hosts, now)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	if err := writeFile(keyPath, keyPEM, 0o600); err != nil {
		return tls.Certificate{}, nil, err
	}
	if err := writeFile(certPath, certPEM, 0o644); err != nil {
		return tls.Certificate{}, nil, err
	}
	c, err := tls.X509KeyPair(certPEM, keyPEM)
	return c, certPEM, err
}

// names reports whether cert names every host.
func names(cert *x509.Certificate, hosts []string) bool {
	for _, h := range hosts {
		if cert.VerifyHostname(h) != nil {
			return false
		}
	}
	return true
}

func create(hosts []string, now time.Time) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("apitls: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, nil, fmt.Errorf("apitls: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "rackboot API", Organization: []string{"rackboot"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(validity),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else if h != "" {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, fmt.Errorf("apitls: %w", err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("apitls: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), nil
}

// writeFile writes b through a synced temporary file renamed into place.
func writeFile(path string, b []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".apitls-*")
	if err != nil {
		return fmt.Errorf("apitls: %w", err)
	}
	defer os.Remove(tmp.Name())
	err = tmp.Chmod(mode)
	if err == nil {
		_, err = tmp.Write(b)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("apitls: %w", err)
	}
	return nil
}
