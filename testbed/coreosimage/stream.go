package coreosimage

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/coreos/stream-metadata-go/stream"
)

// Arch is the one architecture the testbed publishes.
const Arch = "x86_64"

// StreamName is the stream.json's "stream".
const StreamName = "rackboot-testbed"

// Artifact is one published file of the mirror and its hex sha256.
type Artifact struct {
	Path   string
	SHA256 string
}

// Mirror is a published CoreOS-shaped mirror: stream.json and the files it
// names, all in Dir.
type Mirror struct {
	Dir     string
	Stream  string // Dir/stream.json
	Release string // the stream's metal release
	Label   string // the live ISO's volume label (coreos.liveiso)
	ISO     Artifact
	Kernel  Artifact
	Initrd  Artifact // the live initramfs
	Rootfs  Artifact
	Metal   Artifact // raw.xz
	// MetalUncompressedSHA256 is the sha256 of the raw image the raw.xz
	// holds (osimage's).
	MetalUncompressedSHA256 string
}

// streamDoc is the stream metadata document naming m's artifacts for
// x86_64, as FCOS and RHCOS publish theirs. Locations are the files' base
// names: a consumer finds them in the mirror directory by base name.
func streamDoc(m Mirror) stream.Stream {
	art := func(a Artifact) *stream.Artifact {
		return &stream.Artifact{Location: filepath.Base(a.Path), Sha256: a.SHA256}
	}
	metal := art(m.Metal)
	metal.UncompressedSha256 = m.MetalUncompressedSHA256
	return stream.Stream{
		Stream:   StreamName,
		Metadata: stream.Metadata{LastModified: "2026-01-01T00:00:00Z", Generator: "rackboot testbed/coreosimage"},
		Architectures: map[string]stream.Arch{Arch: {Artifacts: map[string]stream.PlatformArtifacts{
			"metal": {Release: m.Release, Formats: map[string]stream.ImageFormat{
				"iso":    {Disk: art(m.ISO)},
				"pxe":    {Kernel: art(m.Kernel), Initramfs: art(m.Initrd), Rootfs: art(m.Rootfs)},
				"raw.xz": {Disk: metal},
			}},
		}}},
	}
}

// writeStream writes m's stream.json to path.
func writeStream(path string, m Mirror) error {
	b, err := json.MarshalIndent(streamDoc(m), "", "  ")
	if err != nil {
		return fmt.Errorf("%w: stream.json: %w", ErrBuild, err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	return nil
}

// ReadMirror reads the mirror whose stream.json is at streamPath back into
// a Mirror (the files' paths beside it), as a consumer of the stream sees
// it.
func ReadMirror(streamPath string) (Mirror, error) {
	raw, err := os.ReadFile(streamPath)
	if err != nil {
		return Mirror{}, fmt.Errorf("coreosimage: %w", err)
	}
	var st stream.Stream
	if err := json.Unmarshal(raw, &st); err != nil {
		return Mirror{}, fmt.Errorf("coreosimage: %s: %w", streamPath, err)
	}
	metal, ok := st.Architectures[Arch].Artifacts["metal"]
	if !ok {
		return Mirror{}, fmt.Errorf("coreosimage: %s: no %s metal artifacts", streamPath, Arch)
	}
	dir := filepath.Dir(streamPath)
	get := func(a *stream.Artifact) Artifact {
		if a == nil {
			return Artifact{}
		}
		return Artifact{Path: filepath.Join(dir, filepath.Base(a.Location)), SHA256: a.Sha256}
	}
	f := metal.Formats
	m := Mirror{Dir: dir, Stream: streamPath, Release: metal.Release,
		ISO: get(f["iso"].Disk), Kernel: get(f["pxe"].Kernel), Initrd: get(f["pxe"].Initramfs),
		Rootfs: get(f["pxe"].Rootfs), Metal: get(f["raw.xz"].Disk)}
	if d := f["raw.xz"].Disk; d != nil {
		m.MetalUncompressedSHA256 = d.UncompressedSha256
	}
	return m, nil
}
