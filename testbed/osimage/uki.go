package osimage

import (
	"bytes"
	"context"
	"debug/pe"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// osRelease is the UKI's .osrel section: what the image says it is.
const osRelease = `NAME="rackboot testbed OS"
ID=rackboot-testbed
PRETTY_NAME="rackboot testbed OS"
VERSION_ID=1
`

// ukiInputs are the parts of a unified kernel image.
type ukiInputs struct {
	stub, kernel, initrd, cmdline string
	dir                           string // scratch directory
}

// ukiSection is a section objcopy adds to the stub.
type ukiSection struct {
	name, file string
}

// sectionAlign is where added sections start in memory: each after the
// one before, on this boundary (the stub's own sections end below it).
const sectionAlign = 0x10000

// makeUKI writes the unified kernel image out: the stub with .osrel,
// .cmdline, .linux and .initrd added behind its own sections, as systemd's
// documentation does it with objcopy.
func makeUKI(ctx context.Context, in ukiInputs, out string) error {
	osrel := filepath.Join(in.dir, "osrel")
	cmdline := filepath.Join(in.dir, "cmdline")
	if err := os.WriteFile(osrel, []byte(osRelease), 0o644); err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	if err := os.WriteFile(cmdline, []byte(in.cmdline), 0o644); err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	next, err := stubEnd(in.stub)
	if err != nil {
		return err
	}
	args := []string{}
	for _, s := range []ukiSection{{".osrel", osrel}, {".cmdline", cmdline}, {".linux", in.kernel}, {".initrd", in.initrd}} {
		st, err := os.Stat(s.file)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrBuild, err)
		}
		next = alignUp(next, sectionAlign)
		args = append(args,
			"--add-section", s.name+"="+s.file,
			"--change-section-vma", fmt.Sprintf("%s=0x%x", s.name, next))
		next += uint64(st.Size())
	}
	args = append(args, in.stub, out)
	cmd := exec.CommandContext(ctx, "objcopy", args...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%w: objcopy: %w: %s", ErrBuild, err, bytes.TrimSpace(msg))
	}
	return nil
}

// stubEnd is the first address behind every section of the stub, as a VMA
// (image base included), which is what objcopy's --change-section-vma takes.
func stubEnd(stub string) (uint64, error) {
	f, err := pe.Open(stub)
	if err != nil {
		return 0, fmt.Errorf("%w: stub %s: %w", ErrBuild, stub, err)
	}
	defer f.Close()
	var end uint64
	for _, s := range f.Sections {
		if e := uint64(s.VirtualAddress) + uint64(s.VirtualSize); e > end {
			end = e
		}
	}
	oh, ok := f.OptionalHeader.(*pe.OptionalHeader64)
	if end == 0 || !ok {
		return 0, fmt.Errorf("%w: stub %s is not a PE32+ image with sections", ErrBuild, stub)
	}
	return oh.ImageBase + end, nil
}

func alignUp(n, a uint64) uint64 { return (n + a - 1) / a * a }
