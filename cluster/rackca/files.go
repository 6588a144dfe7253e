package rackca

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/rackboot/rackboot/engine/auth"
)

// Names of the files under a CA directory. A node's files go to
// <dir>/<node id>/, ready to be copied to /etc/rackboot/cluster/.
const (
	CACertFile   = "ca.crt"
	CAKeyFile    = "ca.key"
	NodeCertFile = "node.crt"
	NodeKeyFile  = "node.key"
	// SecretsKeyFile is the rack's secret-sealing key (32 random bytes,
	// 0600): every appliance seals and opens BMC credentials with it, so
	// any of them can drive the BMCs after a failover.
	SecretsKeyFile = "secrets.key"
	// AdminTokenFile is the rack's admin token: every appliance takes the
	// same one, so a client keeps working when the service address moves.
	AdminTokenFile = "admin-token"
)

// rackFiles are the rack-wide secrets Init writes and WriteNode copies to
// every node's directory.
func rackFiles() []string { return []string{SecretsKeyFile, AdminTokenFile} }

// ErrExists is returned instead of overwriting a CA or a node's files.
var ErrExists = errors.New("rackca: already exists")

// Init creates a new CA in dir (created if needed) as ca.crt and ca.key
// (mode 0600). It refuses to replace an existing CA.
func Init(dir string, now time.Time) (*CA, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("rackca: %w", err)
	}
	for _, f := range []string{CACertFile, CAKeyFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			return nil, fmt.Errorf("%w: %s", ErrExists, filepath.Join(dir, f))
		}
	}
	ca, err := New(now)
	if err != nil {
		return nil, err
	}
	keyPEM, err := ca.KeyPEM()
	if err != nil {
		return nil, err
	}
	if err := writeNew(filepath.Join(dir, CAKeyFile), keyPEM, 0o600); err != nil {
		return nil, err
	}
	if err := writeNew(filepath.Join(dir, CACertFile), ca.CertPEM(), 0o644); err != nil {
		return nil, err
	}
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return nil, fmt.Errorf("rackca: %w", err)
	}
	if err := writeNew(filepath.Join(dir, SecretsKeyFile), secret, 0o600); err != nil {
		return nil, err
	}
	tok, err := auth.NewAdminToken()
	if err != nil {
		return nil, fmt.Errorf("rackca: %w", err)
	}
	if err := writeNew(filepath.Join(dir, AdminTokenFile), []byte(tok+"\n"), 0o600); err != nil {
		return nil, err
	}
	return ca, nil
}

// Load reads the CA that Init wrote in dir.
func Load(dir string) (*CA, error) {
	certPEM, err := os.ReadFile(filepath.Join(dir, CACertFile))
	if err != nil {
		return nil, fmt.Errorf("rackca: %w", err)
	}
	keyPEM, err := os.ReadFile(filepath.Join(dir, CAKeyFile))
	if err != nil {
		return nil, fmt.Errorf("rackca: %w", err)
	}
	return Parse(certPEM, keyPEM)
}

// WriteNode issues a certificate for node id and writes ca.crt, node.crt,
// node.key (mode 0600) and the rack's secrets.key and admin-token (0600,
// when dir has them)
// to <dir>/<id>/, which it returns. It refuses
// to replace a node's existing files.
func (ca *CA) WriteNode(dir, id string, now time.Time) (string, error) {
	if err := CheckNodeID(id); err != nil {
		return "", err
	}
	out := filepath.Join(dir, id)
	if _, err := os.Stat(filepath.Join(out, NodeCertFile)); err == nil {
		return "", fmt.Errorf("%w: %s", ErrExists, filepath.Join(out, NodeCertFile))
	}
	certPEM, keyPEM, err := ca.Issue(id, now)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(out, 0o700); err != nil {
		return "", fmt.Errorf("rackca: %w", err)
	}
	files := []struct {
		name string
		data []byte
		mode fs.FileMode
	}{{NodeKeyFile, keyPEM, 0o600}, {NodeCertFile, certPEM, 0o644}, {CACertFile, ca.CertPEM(), 0o644}}
	for _, name := range rackFiles() {
		if data, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
			files = append(files, struct {
				name string
				data []byte
				mode fs.FileMode
			}{name, data, 0o600})
		}
	}
	for _, f := range files {
		if err := writeNew(filepath.Join(out, f.name), f.data, f.mode); err != nil {
			return "", err
		}
	}
	return out, nil
}

// writeNew writes a file that must not exist yet.
func writeNew(path string, data []byte, mode fs.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return fmt.Errorf("rackca: %w", err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("rackca: %w", err)
	}
	return nil
}
