package engine

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// SealKeyFile is the name of the secret-sealing key file under data_dir.
const SealKeyFile = "secrets.key"

// sealPrefix heads a sealed value: format version 1, then the 12-byte
// nonce, then the AES-256-GCM ciphertext and tag.
const sealPrefix = "rbseal1:"

// Sealing errors.
var (
	// ErrSealKey: the key file is missing, malformed or not private.
	ErrSealKey = errors.New("engine: bad secret-sealing key file")
	// ErrUnseal: a sealed value does not open with this key (another
	// appliance's key, or damaged); it never says what the value was.
	ErrUnseal = errors.New("engine: sealed secret does not open with this key")
)

// Sealer encrypts secret values (BMC credentials) before they go into a
// command, so the raft log and snapshots hold ciphertext only: AES-256-GCM
// with a key kept in a 0600 file, the secret's name and data key bound in
// as associated data (a value cannot be moved to another secret).
type Sealer struct {
	aead cipher.AEAD
}

// NewSealer returns a sealer for a 32-byte key.
func NewSealer(key []byte) (*Sealer, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("%w: key of %d bytes, want 32", ErrSealKey, len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSealKey, err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSealKey, err)
	}
	return &Sealer{aead: aead}, nil
}

// LoadOrCreateSealer reads <dataDir>/secrets.key, creating it (0600, 32
// random bytes) on first start. A key file that others may read, a
// symlink or a file of the wrong size is refused.
func LoadOrCreateSealer(dataDir string) (*Sealer, error) {
	path := filepath.Join(dataDir, SealKeyFile)
	key, err := readSealKey(path)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dataDir, 0o700); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrSealKey, err)
		}
		if err := createSealKey(path); err != nil {
			return nil, err
		}
		key, err = readSealKey(path)
	}
	if err != nil {
		return nil, err
	}
	return NewSealer(key)
}

// LoadSealer reads the sealing key at path (a rack's shared secrets.key):
// it must exist, be private (0600) and hold 32 bytes.
func LoadSealer(path string) (*Sealer, error) {
	key, err := readSealKey(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s does not exist", ErrSealKey, path)
	}
	if err != nil {
		return nil, err
	}
	return NewSealer(key)
}

func readSealKey(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %v", ErrSealKey, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSealKey, err)
	}
	if !st.Mode().IsRegular() || st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%w: %s must be a regular file of mode 0600", ErrSealKey, path)
	}
	key, err := io.ReadAll(io.LimitReader(f, 33))
	if err != nil || len(key) != 32 {
		return nil, fmt.Errorf("%w: %s must hold 32 bytes", ErrSealKey, path)
	}
	return key, nil
}

// createSealKey writes a new key atomically (link of a temporary file), so
// two starts racing agree on one key.
func createSealKey(path string) error {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return fmt.Errorf("%w: %v", ErrSealKey, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".secrets.key-*")
	if err != nil {
		return fmt.Errorf("%w: %v", ErrSealKey, err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err == nil {
		_, err = tmp.Write(key)
		if err == nil {
			err = tmp.Sync()
		}
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%w: %v", ErrSealKey, err)
	}
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%w: %v", ErrSealKey, err)
	}
	return nil
}

// Seal encrypts value for data key dataKey of secret name.
func (s *Sealer) Seal(name, dataKey string, value []byte) ([]byte, error) {
	nonce := make([]byte, s.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("engine: seal: %w", err)
	}
	out := append([]byte(sealPrefix), nonce...)
	return s.aead.Seal(out, nonce, value, sealAD(name, dataKey)), nil
}

// Open decrypts a value Seal made for the same secret name and data key.
func (s *Sealer) Open(name, dataKey string, sealed []byte) ([]byte, error) {
	rest, ok := bytes.CutPrefix(sealed, []byte(sealPrefix))
	if !ok || len(rest) < s.aead.NonceSize()+s.aead.Overhead() {
		return nil, fmt.Errorf("%w: %s/%s is not a sealed value", ErrUnseal, name, dataKey)
	}
	n := s.aead.NonceSize()
	v, err := s.aead.Open(nil, rest[:n], rest[n:], sealAD(name, dataKey))
	if err != nil {
		return nil, fmt.Errorf("%w: %s/%s", ErrUnseal, name, dataKey)
	}
	return v, nil
}

// IsSealed reports whether b looks like a sealed value.
func IsSealed(b []byte) bool { return bytes.HasPrefix(b, []byte(sealPrefix)) }

func sealAD(name, dataKey string) []byte {
	return []byte("rackboot-secret-v1\x00" + name + "\x00" + dataKey)
}
