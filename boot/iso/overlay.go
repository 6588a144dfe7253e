package iso

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/rackboot/rackboot/boot/initrd"
	"github.com/rackboot/rackboot/boot/kargs"
)

// Errors returned by Overlay.
var (
	ErrTooLarge      = errors.New("iso: customisation does not fit its area")
	ErrNoKargsArea   = errors.New("iso: image has no kernel argument area")
	ErrBadKernelArgs = errors.New("iso: bad kernel arguments")
)

// ContentType is sent with served images.
const ContentType = "application/x-iso9660-image"

// Base is an opened base ISO. It is safe for concurrent use.
type Base struct {
	f      *os.File
	size   int64
	id     []byte
	layout Layout
}

// OpenBase opens and inspects the base ISO at path.
func OpenBase(path string) (*Base, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("iso: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("iso: %w", err)
	}
	layout, err := Inspect(f, fi.Size())
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &Base{f: f, size: fi.Size(), id: initrd.FileIdentity(fi), layout: layout}, nil
}

// Layout returns the areas found in the base.
func (b *Base) Layout() Layout { return b.layout }

// Size is the base image's size, and every overlay's.
func (b *Base) Size() int64 { return b.size }

// Close closes the base file; images made from it stop working.
func (b *Base) Close() error { return b.f.Close() }

// Custom is what one image carries.
type Custom struct {
	// Ignition is written as config.ign into the embed area. Empty leaves
	// the area as it is in the base.
	Ignition []byte
	// ExtraKernelArgs are appended to the ISO's default kernel arguments in
	// every kargs area. Empty leaves the areas as they are.
	ExtraKernelArgs string
	// KernelArgs then change them (append, replace, delete: an
	// infra-env's kernel_arguments, kargs.Apply).
	KernelArgs []kargs.Arg
}

// patch replaces the base's bytes from off on.
type patch struct {
	off  int64
	data []byte
}

// Image is a base ISO with some areas replaced. Only the replaced areas are
// held in memory; everything else is read from the base file.
type Image struct {
	base    *Base
	patches []patch // sorted, not overlapping
	etag    string
}

// Overlay returns the base customised with c.
func (b *Base) Overlay(c Custom) (*Image, error) {
	img := &Image{base: b}
	if len(c.Ignition) > 0 {
		p, err := ignitionPatch(b.layout.Ignition, c.Ignition)
		if err != nil {
			return nil, err
		}
		img.patches = append(img.patches, p)
	}
	if c.ExtraKernelArgs != "" || len(c.KernelArgs) > 0 {
		ps, err := kargsPatches(b.layout.Kargs, c.ExtraKernelArgs, c.KernelArgs)
		if err != nil {
			return nil, err
		}
		img.patches = append(img.patches, ps...)
	}
	sort.Slice(img.patches, func(i, j int) bool { return img.patches[i].off < img.patches[j].off })
	h := sha256.New()
	for _, p := range img.patches {
		fmt.Fprintf(h, "%d:%d:", p.off, len(p.data))
		h.Write(p.data)
	}
	img.etag = initrd.ETag([]byte("rackboot-iso-1"), b.id, h.Sum(nil))
	return img, nil
}

func ignitionPatch(a Area, ignition []byte) (patch, error) {
	archive, err := initrd.Appendix(ignition)
	if err != nil {
		return patch{}, fmt.Errorf("iso: %w", err)
	}
	if int64(len(archive)) > a.Length {
		return patch{}, fmt.Errorf("%w: compressed Ignition archive is %d bytes, the embed area holds %d (config.ign of %d bytes)",
			ErrTooLarge, len(archive), a.Length, len(ignition))
	}
	data := make([]byte, a.Length)
	copy(data, archive)
	return patch{off: a.Offset, data: data}, nil
}

func kargsPatches(k *Kargs, extra string, ops []kargs.Arg) ([]patch, error) {
	if k == nil {
		return nil, fmt.Errorf("%w (no %s)", ErrNoKargsArea, KargsInfoPath)
	}
	if i := strings.IndexFunc(extra, func(r rune) bool { return r < 0x20 || r == 0x7f }); i >= 0 {
		return nil, fmt.Errorf("%w: control character at byte %d", ErrBadKernelArgs, i)
	}
	args := strings.TrimSpace(k.Default + " " + strings.TrimSpace(extra))
	if len(ops) > 0 {
		var err error
		if args, err = kargs.Apply(args, ops); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadKernelArgs, err)
		}
	}
	var ps []patch
	for _, r := range k.Regions {
		if strings.IndexByte(args, r.Pad) >= 0 || strings.IndexByte(args, r.End) >= 0 {
			return nil, fmt.Errorf("%w: may not contain %q or %q", ErrBadKernelArgs, r.Pad, r.End)
		}
		if len(args)+1 > k.Size {
			return nil, fmt.Errorf("%w: kernel arguments need %d bytes, the area holds %d", ErrTooLarge, len(args)+1, k.Size)
		}
		data := bytes.Repeat([]byte{r.Pad}, k.Size)
		copy(data, args)
		data[len(args)] = r.End
		ps = append(ps, patch{off: r.Offset, data: data})
	}
	return ps, nil
}

// Size is the image's size in bytes.
func (img *Image) Size() int64 { return img.base.size }

// ETag is a strong, quoted entity tag: the base file's identity and the
// replaced bytes.
func (img *Image) ETag() string { return img.etag }

// ReadAt reads the base and lays the replaced areas over it.
func (img *Image) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("iso: negative offset %d", off)
	}
	if off >= img.base.size {
		return 0, io.EOF
	}
	n, err := img.base.f.ReadAt(p, off)
	end := off + int64(n)
	for _, pt := range img.patches {
		lo, hi := max(off, pt.off), min(end, pt.off+int64(len(pt.data)))
		if lo < hi {
			copy(p[lo-off:hi-off], pt.data[lo-pt.off:hi-pt.off])
		}
	}
	return n, err
}

// ServeHTTP answers GET and HEAD, with Range, If-Range and If-None-Match.
// No Last-Modified is sent: the base's time says nothing of the overlay.
func (img *Image) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("ETag", img.etag)
	h.Set("Content-Type", ContentType)
	h.Set("Cache-Control", "private, no-store")
	http.ServeContent(w, r, "", time.Time{}, io.NewSectionReader(img, 0, img.base.size))
}

// ServeOverlay answers r with the base customised with c: the image on
// GET and HEAD (with Range), 405 for other methods, 500 when c does not fit
// the base (the error names the sizes, never the content).
func (b *Base) ServeOverlay(w http.ResponseWriter, r *http.Request, c Custom) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	img, err := b.Overlay(c)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	img.ServeHTTP(w, r)
}
