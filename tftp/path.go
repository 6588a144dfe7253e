package tftp

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"unicode/utf8"
)

// Sentinel errors. A request refused for one of these reasons gets a TFTP
// ERROR packet; errors.Is works on everything this package returns.
var (
	// ErrAccess is a name that tries to leave the root ("..") or a file the
	// root does not let us read (e.g. a symlink that escapes RootFS).
	ErrAccess = errors.New("access violation")
	// ErrBadName is an empty, over-long, non-UTF-8 or control-character name.
	ErrBadName = errors.New("invalid file name")
	// ErrNotFound is a file that is not in the root, or is not a regular file.
	ErrNotFound = errors.New("file not found")
	// ErrReadOnly is a write request.
	ErrReadOnly = errors.New("server is read-only")
	// ErrMalformed is a packet that is not a well-formed TFTP request.
	ErrMalformed = errors.New("malformed request")
	// ErrBusy is a request beyond Config.MaxTransfers.
	ErrBusy = errors.New("server busy, try again")
	// ErrServerClosed is returned by Serve after Shutdown.
	ErrServerClosed = errors.New("tftp: server closed")
)

// MaxNameLen is the longest file name CleanPath accepts, in bytes.
const MaxNameLen = 255

// CleanPath turns the file name of a TFTP request into a path that is valid
// for an fs.FS (fs.ValidPath) and names something under the root.
//
//   - "\" is read as "/" (Windows-style clients such as WDS send them).
//   - Leading "/" are stripped: the root is "/" to the client, as with
//     dnsmasq and tftpd-hpa --secure. "/etc/passwd" is "etc/passwd" in the
//     root, which does not exist there.
//   - Empty and "." elements are dropped ("a//./b" is "a/b").
//   - ".." anywhere is refused with ErrAccess, even where it would stay
//     inside the root ("a/../b"): nothing is resolved, nothing can escape.
//   - Empty names, names longer than MaxNameLen, invalid UTF-8, NUL and other
//     control characters are refused with ErrBadName.
func CleanPath(name string) (string, error) {
	switch {
	case name == "":
		return "", fmt.Errorf("%w: empty", ErrBadName)
	case len(name) > MaxNameLen:
		return "", fmt.Errorf("%w: longer than %d bytes", ErrBadName, MaxNameLen)
	case !utf8.ValidString(name):
		return "", fmt.Errorf("%w: not UTF-8", ErrBadName)
	case strings.IndexFunc(name, isControl) >= 0:
		return "", fmt.Errorf("%w: control character", ErrBadName)
	}
	parts := strings.Split(strings.ReplaceAll(name, `\`, "/"), "/")
	kept := parts[:0]
	for _, p := range parts {
		switch p {
		case "", ".":
			continue
		case "..":
			return "", fmt.Errorf("%w: %q leaves the root", ErrAccess, name)
		}
		kept = append(kept, p)
	}
	clean := strings.Join(kept, "/")
	if !fs.ValidPath(clean) || clean == "." || clean == "" {
		return "", fmt.Errorf("%w: %q names no file", ErrBadName, name)
	}
	return clean, nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// RootFS opens dir as an fs.FS that cannot be escaped: a symlink inside dir
// may point anywhere inside dir, but one that leads out of it (absolute, or
// with enough "..") fails to open, and the server answers "access
// violation". It is the fs.FS New expects in production.
//
// Note that Debian's ipxe package makes /usr/lib/ipxe/ipxe.efi a symlink to
// /boot/ipxe.efi, which RootFS("/usr/lib/ipxe") therefore refuses to serve.
func RootFS(dir string) (fs.FS, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("tftp root: %w", err)
	}
	return root.FS(), nil
}
