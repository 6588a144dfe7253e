package image

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"

	"github.com/cavaliergopher/cpio"

	"github.com/rackboot/rackboot/testbed/internal/buildfs"
)

// LayerFile is one regular file of an initrd layer.
type LayerFile struct {
	Name string      // path in the archive, without a leading slash ("init")
	Data []byte      // contents
	Perm fs.FileMode // permission bits
}

// AppendLayer writes base (an initrd file) followed by a gzip newc cpio
// holding files to out. The kernel unpacks concatenated archives in order,
// so a layer's file replaces the base's file of the same name: a test puts
// its own /init and binaries on top of the image Build makes.
func AppendLayer(base, out string, files []LayerFile) error {
	b, err := os.ReadFile(base)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInitrd, err)
	}
	buf := bytes.NewBuffer(b)
	es := make([]buildfs.Entry, 0, len(files))
	for _, f := range files {
		es = append(es, buildfs.Entry{Name: f.Name, Mode: cpio.FileMode(f.Perm.Perm()), Body: string(f.Data)})
	}
	if err := buildfs.WriteArchive(buf, nil, es); err != nil {
		return fmt.Errorf("%w: %w", ErrInitrd, err)
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("%w: %w", ErrInitrd, err)
	}
	return nil
}
