package image

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/rackboot/rackboot/testbed/internal/buildfs"
)

// IgnitionPackage is the main package of Ignition; testbed/ignition is the Go
// module (pinned to the version of rackboot's config library) it is built in.
const (
	IgnitionPackage = "github.com/coreos/ignition/v2/internal"
	ignitionModule  = "testbed/ignition"
)

// ignitionLDFlags link Ignition statically (its user lookups and blkid
// calls need cgo) and turn off SELinux relabelling, which would read
// /etc/selinux/config and fail in an initrd without SELinux.
const ignitionLDFlags = "-s -w -linkmode external -extldflags -static" +
	" -X github.com/coreos/ignition/v2/internal/version.Raw=v2.24.0" +
	" -X github.com/coreos/ignition/v2/internal/distro.selinuxRelabel=false"

// staticBlkid is the archive the static link of Ignition needs (libblkid-dev).
const staticBlkid = "/usr/lib/x86_64-linux-gnu/libblkid.a"

// BuildIgnition compiles Ignition's binary from the testbed/ignition module
// of repoRoot: statically linked with cgo (it needs gcc and libblkid-dev).
// The result is cached under cacheDir/ignition by the module's go.mod and
// go.sum and the Go version, as the first build takes minutes.
func BuildIgnition(ctx context.Context, repoRoot, cacheDir string) (string, error) {
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return "", fmt.Errorf("%w: %w", ErrBinary, err)
	}
	unlock, err := buildfs.Lock(filepath.Join(cacheDir, "ignition.lock"))
	if err != nil {
		return "", fmt.Errorf("image: %w", err)
	}
	defer unlock()
	modDir := filepath.Join(repoRoot, ignitionModule)
	key, err := ignitionKey(ctx, modDir)
	if err != nil {
		return "", err
	}
	out := filepath.Join(cacheDir, "ignition", key, "ignition")
	if exists(out) {
		return out, nil
	}
	if _, err := os.Stat(staticBlkid); err != nil {
		return "", fmt.Errorf("%w: ignition needs %s (apt-get install libblkid-dev): %w", ErrBinary, staticBlkid, err)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return "", fmt.Errorf("%w: %w", ErrBinary, err)
	}
	tmp := out + ".tmp"
	cmd := exec.CommandContext(ctx, "go", "build", "-tags", "osusergo,netgo", "-trimpath",
		"-ldflags", ignitionLDFlags, "-o", tmp, IgnitionPackage)
	cmd.Dir = modDir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1", "GOWORK=off", "GOFLAGS=-mod=readonly")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%w: go build %s: %w: %s", ErrBinary, IgnitionPackage, err, lastLines(msg, 5))
	}
	if err := os.Rename(tmp, out); err != nil {
		return "", fmt.Errorf("%w: %w", ErrBinary, err)
	}
	return out, nil
}

func ignitionKey(ctx context.Context, modDir string) (string, error) {
	h := sha256.New()
	io.WriteString(h, ignitionLDFlags+"\n")
	for _, f := range []string{"go.mod", "go.sum"} {
		if err := buildfs.HashFile(h, filepath.Join(modDir, f)); err != nil {
			return "", fmt.Errorf("%w: %w", ErrBinary, err)
		}
	}
	v, err := exec.CommandContext(ctx, "go", "env", "GOVERSION").Output()
	if err != nil {
		return "", fmt.Errorf("%w: go env GOVERSION: %w", ErrBinary, err)
	}
	h.Write(v)
	return hex.EncodeToString(h.Sum(nil))[:20], nil
}

func lastLines(b []byte, n int) string {
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}

// ErrBinary is returned when a binary of the testbed's images cannot be
// built or read.
var ErrBinary = errors.New("image: binary")
