package coreosimage

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rackboot/rackboot/testbed/image"
)

// ImageSetKernelArgs are the live kernel arguments a testbed image set
// adds to CoreOS's: LiveKargs, as the ISO's.
const ImageSetKernelArgs = LiveKargs

// ImageSet is a testbed [[image_set]] of rackbootd's configuration that
// boots the mirror through coreos_stream, as a user's RHCOS mirror is
// declared.
type ImageSet struct {
	Name    string
	Version string // "" for none
	Mirror  Mirror
	// Extra are further keys and sub-tables of the image set (TOML, e.g.
	// role_ignition_dir or [image_set.thresholds]), written after the
	// CoreOS keys.
	Extra string
}

// TOML is the [[image_set]] table.
func (s ImageSet) TOML() string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n[[image_set]]\nname = %q\n", s.Name)
	if s.Version != "" {
		fmt.Fprintf(&b, "version = %q\n", s.Version)
	}
	fmt.Fprintf(&b, "cpu_arch = %q\ncoreos_stream = %q\nkernel_arguments = %q\n", Arch, s.Mirror.Stream, ImageSetKernelArgs)
	if s.Extra != "" {
		b.WriteString(strings.TrimLeft(s.Extra, "\n"))
		if !strings.HasSuffix(s.Extra, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// AgentDir is [server] agent_dir for a testbed rackbootd: bin/agent of the
// repository at repoRoot, where make build writes rackboot-agent per
// architecture (a CoreOS image set needs the one of its architecture).
func AgentDir(repoRoot string) string { return filepath.Join(repoRoot, "bin", "agent") }

// BuildDefault is BuildFromSource from this repository into the cache the
// testbed's tests share (image.DefaultCacheDir).
func BuildDefault(ctx context.Context) (Mirror, error) {
	root, err := image.RepoRoot()
	if err != nil {
		return Mirror{}, err
	}
	cache, err := image.DefaultCacheDir()
	if err != nil {
		return Mirror{}, err
	}
	return BuildFromSource(ctx, root, cache)
}
