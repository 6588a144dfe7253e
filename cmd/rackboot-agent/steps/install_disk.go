package steps

import (
	"fmt"
	"io"
	"os"
)

// openDevice opens a block device (exclusively: a mounted one is refused)
// or, for tests, an existing regular file, read-write, and returns its
// size.
func openDevice(path string) (*os.File, int64, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_EXCL, 0)
	if err != nil {
		return nil, 0, fail(ErrDevice, err, "cannot open boot device")
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, fail(ErrDevice, err, "cannot stat boot device")
	}
	m := fi.Mode()
	if !m.IsRegular() && (m&os.ModeDevice == 0 || m&os.ModeCharDevice != 0) {
		f.Close()
		return nil, 0, fail(ErrDevice, nil, "boot device %s is neither a block device nor a file", path)
	}
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		f.Close()
		return nil, 0, fail(ErrDevice, err, "cannot size boot device %s", path)
	}
	if size < 2*GPTReservedSectors*SectorSize {
		f.Close()
		return nil, 0, fail(ErrDevice, nil, "boot device %s holds only %d bytes", path, size)
	}
	return f, size, nil
}

// wipeGPT zeroes the protective MBR, primary GPT header and table (the
// first 34 sectors) and the backup table and header (the last 33 sectors)
// at the end of the device and, when the image is shorter, at the end of
// the image, so that no firmware finds a partition table to boot. It
// syncs.
func wipeGPT(dev *os.File, devSize, imageSize int64) error {
	const head, tail = GPTReservedSectors * SectorSize, (GPTReservedSectors - 1) * SectorSize
	ends := []int64{devSize}
	if imageSize >= head+tail && imageSize < devSize {
		ends = append(ends, imageSize)
	}
	if err := zeroRange(dev, 0, head); err != nil {
		return err
	}
	for _, end := range ends {
		if err := zeroRange(dev, end-tail, end); err != nil {
			return err
		}
	}
	if err := dev.Sync(); err != nil {
		return fmt.Errorf("steps: sync after wiping the GPT: %w", err)
	}
	return nil
}

// zeroRange writes zeros over [from, to).
func zeroRange(w io.WriterAt, from, to int64) error {
	if to <= from {
		return nil
	}
	zeros := make([]byte, min(to-from, imageBlock))
	for off := from; off < to; {
		n := min(to-off, int64(len(zeros)))
		if _, err := w.WriteAt(zeros[:n], off); err != nil {
			return fmt.Errorf("steps: zeroing at byte %d: %w", off, err)
		}
		off += n
	}
	return nil
}
