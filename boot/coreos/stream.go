package coreos

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/coreos/stream-metadata-go/stream"
)

// Sentinel errors of this package.
var (
	ErrStream   = errors.New("coreos: bad stream metadata")
	ErrArch     = errors.New("coreos: architecture not in the stream")
	ErrChecksum = errors.New("coreos: sha256 mismatch")
	ErrISO      = errors.New("coreos: not a CoreOS live ISO")
)

// Architectures are the stream architectures this package serves.
var Architectures = []string{"x86_64", "aarch64"}

// File is one artifact on the appliance: its path and the hex sha256 it
// must have ("" when nothing says).
type File struct {
	Path   string
	SHA256 string
}

// Artifacts are the live and metal artifacts of one architecture.
type Artifacts struct {
	Arch   string // x86_64 or aarch64
	ISO    File   // the live ISO
	Rootfs File   // the live rootfs (images/pxeboot/rootfs.img)
	// Metal is the metal disk image (raw.xz); zero when the stream has
	// none. MetalUncompressedSHA256 is the sha256 of its raw bytes.
	Metal                   File
	MetalUncompressedSHA256 string
}

// Arch maps a CPU architecture as the configuration and the REST API
// write it (x86_64, amd64, aarch64, arm64) to the stream's name; "" for
// one this package does not serve.
func Arch(cpu string) string {
	switch cpu {
	case "x86_64", "amd64":
		return "x86_64"
	case "aarch64", "arm64":
		return "aarch64"
	}
	return ""
}

// FromStream reads the stream metadata document at streamPath and returns
// the metal artifacts of arch (stream name or alias, see Arch), each found
// in mirrorDir by the base name of its location. A missing live ISO or
// rootfs, or a file absent from the mirror, is an error; the metal image
// is optional.
func FromStream(streamPath, mirrorDir, arch string) (Artifacts, error) {
	raw, err := os.ReadFile(streamPath)
	if err != nil {
		return Artifacts{}, fmt.Errorf("%w: %w", ErrStream, err)
	}
	var st stream.Stream
	if err := json.Unmarshal(raw, &st); err != nil {
		return Artifacts{}, fmt.Errorf("%w: %s: %w", ErrStream, streamPath, err)
	}
	name := Arch(arch)
	a, ok := st.Architectures[name]
	if name == "" || !ok {
		return Artifacts{}, fmt.Errorf("%w: %s has no architecture %q (it has %s)", ErrArch, streamPath, arch, archNames(st))
	}
	metal, ok := a.Artifacts["metal"]
	if !ok {
		return Artifacts{}, fmt.Errorf("%w: %s: architecture %s has no metal artifacts", ErrStream, streamPath, name)
	}
	out := Artifacts{Arch: name}
	if out.ISO, err = mirrored(mirrorDir, "iso", disk(metal, "iso")); err != nil {
		return Artifacts{}, err
	}
	if out.Rootfs, err = mirrored(mirrorDir, "pxe rootfs", rootfs(metal)); err != nil {
		return Artifacts{}, err
	}
	if m := disk(metal, "raw.xz"); m != nil {
		if out.Metal, err = mirrored(mirrorDir, "raw.xz", m); err != nil {
			return Artifacts{}, err
		}
		out.MetalUncompressedSHA256 = strings.ToLower(m.UncompressedSha256)
	}
	return out, nil
}

func disk(p stream.PlatformArtifacts, format string) *stream.Artifact {
	return p.Formats[format].Disk
}

func rootfs(p stream.PlatformArtifacts) *stream.Artifact {
	return p.Formats["pxe"].Rootfs
}

// mirrored is the artifact's file in dir.
func mirrored(dir, what string, a *stream.Artifact) (File, error) {
	if a == nil || a.Location == "" {
		return File{}, fmt.Errorf("%w: no metal %s artifact", ErrStream, what)
	}
	u, err := url.Parse(a.Location)
	if err != nil {
		return File{}, fmt.Errorf("%w: metal %s location %q: %w", ErrStream, what, a.Location, err)
	}
	base := path.Base(u.Path)
	if base == "." || base == "/" || base == ".." {
		return File{}, fmt.Errorf("%w: metal %s location %q names no file", ErrStream, what, a.Location)
	}
	p := filepath.Join(dir, base)
	fi, err := os.Stat(p)
	if err != nil {
		return File{}, fmt.Errorf("metal %s: %s is not in the mirror: %w", what, base, err)
	}
	if !fi.Mode().IsRegular() {
		return File{}, fmt.Errorf("metal %s: %s is not a regular file", what, p)
	}
	return File{Path: p, SHA256: strings.ToLower(a.Sha256)}, nil
}

func archNames(st stream.Stream) string {
	var names []string
	for n := range st.Architectures {
		names = append(names, n)
	}
	slices.Sort(names)
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
