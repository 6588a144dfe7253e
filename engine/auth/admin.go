package auth

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// AdminTokenFile is the name of the admin token file under data_dir.
const AdminTokenFile = "admin-token"

// maxAdminTokenFile bounds what is read from the admin token file.
const maxAdminTokenFile = 4096

// LoadOrCreateAdminToken returns the admin token kept in
// <dataDir>/admin-token, creating the directory (0700) and the file (0600,
// 32 random bytes in base64url and a newline) when it does not exist yet.
// The file is created atomically, so two starts racing agree on one token.
// A file readable or writable by group or others, a symlink or an empty
// file is refused with ErrInsecureTokenFile; the error never holds the token.
func LoadOrCreateAdminToken(dataDir string) (string, error) {
	if dataDir == "" {
		return "", fmt.Errorf("admin token: empty data directory")
	}
	path := filepath.Join(dataDir, AdminTokenFile)
	tok, err := readAdminToken(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return tok, err
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return "", fmt.Errorf("admin token: %w", err)
	}
	if err := createAdminToken(path); err != nil {
		return "", err
	}
	return readAdminToken(path)
}

// readAdminToken opens path without following a symlink and checks the
// mode of what it opened (not of the name, so nothing can be swapped).
func readAdminToken(path string) (string, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return "", fmt.Errorf("%w: %s is a symlink", ErrInsecureTokenFile, path)
		}
		return "", fmt.Errorf("admin token: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("admin token: %w", err)
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("%w: %s is not a regular file", ErrInsecureTokenFile, path)
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		return "", fmt.Errorf("%w: %s has mode %04o, want 0600 (chmod 600 %s)",
			ErrInsecureTokenFile, path, perm, path)
	}
	raw, err := io.ReadAll(io.LimitReader(f, maxAdminTokenFile+1))
	if err != nil {
		return "", fmt.Errorf("admin token: reading %s: %w", path, err)
	}
	tok := string(bytes.TrimSpace(raw))
	switch {
	case len(raw) > maxAdminTokenFile:
		return "", fmt.Errorf("%w: %s is larger than %d bytes", ErrInsecureTokenFile, path, maxAdminTokenFile)
	case tok == "":
		return "", fmt.Errorf("%w: %s is empty", ErrInsecureTokenFile, path)
	case checkTokenChars(tok) != nil:
		return "", fmt.Errorf("%w: %s holds characters not allowed in a bearer token", ErrInsecureTokenFile, path)
	}
	return tok, nil
}

// createAdminToken writes a new token to a temporary file and links it to
// path; when path appeared meanwhile, the other writer's token stands.
func createAdminToken(path string) error {
	tok, err := NewAdminToken()
	if err != nil {
		return err
	}
	return writeTokenFile(path, tok, func(tmp, path string) error {
		if err := os.Link(tmp, path); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		return nil
	})
}

// writeTokenFile writes tok to a synced 0600 temporary file beside path,
// puts it at path with place (a link that keeps a token already there, or
// a rename that replaces it) and syncs the directory.
func writeTokenFile(path, tok string, place func(tmp, path string) error) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+AdminTokenFile+".*")
	if err != nil {
		return fmt.Errorf("admin token: %w", err)
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	if err := tmp.Chmod(0o600); err != nil {
		return fmt.Errorf("admin token: %w", err)
	}
	if _, err := tmp.WriteString(tok + "\n"); err != nil {
		return fmt.Errorf("admin token: writing: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("admin token: %w", err)
	}
	if err := place(tmp.Name(), path); err != nil {
		return fmt.Errorf("admin token: %w", err)
	}
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("admin token: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("admin token: syncing %s: %w", dir, err)
	}
	return nil
}

// NewAdminToken returns 32 random bytes in unpadded base64url (43 chars).
func NewAdminToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("admin token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// TokenEqual reports whether got equals want in time independent of their
// contents and lengths. An empty want matches nothing.
func TokenEqual(got, want string) bool {
	if want == "" {
		return false
	}
	g := sha256.Sum256([]byte(got))
	w := sha256.Sum256([]byte(want))
	return subtle.ConstantTimeCompare(g[:], w[:]) == 1
}

// ReadAdminToken reads an admin token file written elsewhere (a rack's
// shared admin-token), with the checks LoadOrCreateAdminToken applies.
func ReadAdminToken(path string) (string, error) { return readAdminToken(path) }

// InstallAdminToken makes <dataDir>/admin-token hold tok (0600, replaced
// atomically), so that a rack member's local rackbootctl finds the rack's
// token where it looks for it.
func InstallAdminToken(dataDir, tok string) error {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return fmt.Errorf("admin token: %w", err)
	}
	path := filepath.Join(dataDir, AdminTokenFile)
	if cur, err := readAdminToken(path); err == nil && cur == tok {
		return nil
	}
	return writeTokenFile(path, tok, os.Rename)
}
