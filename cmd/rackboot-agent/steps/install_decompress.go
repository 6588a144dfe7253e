package steps

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"os/exec"
	"strings"

	"github.com/ulikunitz/xz"
)

// Compressed disk images: a CoreOS metal image is published as .raw.xz
// (and sometimes .raw.gz). The agent recognises the compression by its
// magic bytes, as coreos-installer does, and decompresses on the fly:
// the downloaded bytes go through a pipe to a decompressor that writes
// the raw image to the device, so an interrupted download resumes (Range
// on the compressed file) without the decompressor seeing the break. The
// sha256 checked is the served (compressed) file's, the one a stream
// names.

var (
	gzipMagic = []byte{0x1f, 0x8b}
	xzMagic   = []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}
)

// compression names the compression of an image starting with head, or "".
func compression(head []byte) string {
	switch {
	case bytes.HasPrefix(head, xzMagic):
		return "xz"
	case bytes.HasPrefix(head, gzipMagic):
		return "gzip"
	}
	return ""
}

// decoder writes a decompressed image to the device as its compressed
// bytes arrive through Write.
type decoder struct {
	pw   *io.PipeWriter
	done chan error
}

// startDecoder starts decompressing kind into in's device from offset 0.
func (in *installer) startDecoder(kind string) *decoder {
	pr, pw := io.Pipe()
	d := &decoder{pw: pw, done: make(chan error, 1)}
	go func() {
		err := in.decompress(kind, pr)
		pr.CloseWithError(err) // a Write after a failure returns it
		d.done <- err
	}()
	return d
}

func (in *installer) decompress(kind string, r io.Reader) error {
	if bin := in.deps.xzTool(); kind == "xz" && bin != "" {
		return in.decompressWithTool(bin, r)
	}
	var (
		dec io.Reader
		err error
	)
	r = bufio.NewReaderSize(r, imageBlock) // the Go decoders read in small pieces; a pipe hands each over
	switch kind {
	case "xz":
		dec, err = xz.NewReader(r)
	default:
		dec, err = gzip.NewReader(r)
	}
	if err != nil {
		return final(ErrImage, err, "the %s disk image cannot be decompressed", kind)
	}
	return in.writeDecompressed(kind, dec)
}

// decompressWithTool runs the system's xz (xz-utils, in every CoreOS live
// image), about twice as fast as the pure-Go decoder on these machines.
func (in *installer) decompressWithTool(bin string, r io.Reader) error {
	cmd := exec.Command(bin, "-dc")
	cmd.Stdin = r
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return final(ErrImage, err, "the xz disk image cannot be decompressed")
	}
	if err := cmd.Start(); err != nil {
		return final(ErrImage, err, "starting %s", bin)
	}
	werr := in.writeDecompressed("xz", out)
	if werr != nil {
		_ = cmd.Process.Kill()
	}
	err = cmd.Wait()
	switch {
	case werr != nil:
		return werr
	case err != nil:
		return final(ErrImage, nil, "decompressing the xz disk image failed at byte %d: xz: %s", in.written,
			strings.TrimSpace(stderr.String()))
	}
	return nil
}

// writeDecompressed copies the decompressed image from dec to the device.
func (in *installer) writeDecompressed(kind string, dec io.Reader) error {
	buf := make([]byte, imageBlock)
	for {
		n, rerr := fill(dec, buf)
		if n > 0 {
			if in.written+int64(n) > in.devSize {
				return final(ErrDevice, nil, "the decompressed disk image is larger than boot device %s (%d bytes)", in.args.BootDevice, in.devSize)
			}
			in.touched = true
			if _, err := in.dev.WriteAt(buf[:n], in.written); err != nil {
				return final(ErrDevice, err, "writing boot device %s", in.args.BootDevice)
			}
			in.written += int64(n)
		}
		switch {
		case rerr == io.EOF:
			return nil
		case rerr != nil:
			return final(ErrImage, rerr, "decompressing the %s disk image failed at byte %d", kind, in.written)
		}
	}
}

// Write hands compressed bytes to the decompressor.
func (d *decoder) Write(b []byte) (int, error) { return d.pw.Write(b) }

// finish ends the compressed stream and waits for the decompressor; with
// cause (a failed download) it stops it.
func (d *decoder) finish(cause error) error {
	if cause != nil {
		d.pw.CloseWithError(cause)
		<-d.done
		return cause
	}
	d.pw.Close()
	if err := <-d.done; err != nil {
		return err
	}
	return nil
}

// xzTool is the xz binary to decompress with, or "" for the Go decoder.
func (d Deps) xzTool() string {
	switch d.XZ {
	case "none":
		return ""
	case "":
		p, err := exec.LookPath("xz")
		if err != nil {
			return ""
		}
		return p
	}
	return d.XZ
}
