package coreosimage

import (
	"errors"
	"fmt"

	"github.com/rackboot/rackboot/testbed/internal/buildfs"
)

// ErrBuild is returned when an artifact cannot be built.
var ErrBuild = errors.New("coreosimage: build")

// writeArchiveFile writes es, after the directories extra and es need, to
// the file name as a gzip newc cpio (buildfs.WriteArchive: reproducible).
func writeArchiveFile(name string, extra []string, es []buildfs.Entry) error {
	if err := buildfs.WriteArchiveFile(name, buildfs.DirsOf(extra, es), es); err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	return nil
}
