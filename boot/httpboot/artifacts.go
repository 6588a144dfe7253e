package httpboot

import (
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/rackboot/rackboot/boot/initrd"
)

// maxBinary bounds an iPXE binary read whole from an fs.FS that cannot seek.
const maxBinary = 64 << 20

func (h *Handler) kernel(w http.ResponseWriter, r *http.Request, mac net.HardwareAddr) {
	ch, ok := h.choose(w, r, mac)
	if !ok {
		return
	}
	f, err := os.Open(ch.Kernel)
	var fi os.FileInfo
	if err == nil {
		defer f.Close()
		fi, err = f.Stat()
	}
	if err != nil {
		h.unavailable(w, r, mac, ch.Profile, "kernel", err)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("ETag", initrd.ETag(initrd.FileIdentity(fi)))
	http.ServeContent(w, r, "", fi.ModTime(), f)
}

func (h *Handler) initrd(w http.ResponseWriter, r *http.Request, mac net.HardwareAddr) {
	ch, ok := h.choose(w, r, mac)
	if !ok {
		return
	}
	app, err := h.appendices.get(ch.Ignition)
	if err != nil {
		h.unavailable(w, r, mac, ch.Profile, "initrd appendix", err)
		return
	}
	ird, err := initrd.Open(ch.Initrd, app)
	if err != nil {
		h.unavailable(w, r, mac, ch.Profile, "initrd", err)
		return
	}
	defer ird.Close()
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("ETag", ird.ETag())
	// No Last-Modified: the appendix can change while the base file does
	// not, so only the ETag tells versions apart.
	content := ird.ReadSeeker()
	http.ServeContent(&rangeWriter{ResponseWriter: w, content: content, ird: ird}, r, "", time.Time{}, content)
}

// rangeWriter hands the bytes http.ServeContent copies from content to
// Initrd.WriteRange, so that the base file part goes out with sendfile(2)
// rather than through a buffer. Anything else is copied as usual.
type rangeWriter struct {
	http.ResponseWriter
	content io.ReadSeeker
	ird     *initrd.Initrd
}

func (rw *rangeWriter) ReadFrom(src io.Reader) (int64, error) {
	lr, ok := src.(*io.LimitedReader)
	if !ok || lr.R != rw.content {
		return io.Copy(rw.ResponseWriter, src)
	}
	off, err := rw.content.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, err
	}
	n, err := rw.ird.WriteRange(rw.ResponseWriter, off, min(lr.N, rw.ird.Size()-off))
	lr.N -= n
	if _, serr := rw.content.Seek(n, io.SeekCurrent); err == nil {
		err = serr
	}
	return n, err
}

func (rw *rangeWriter) Unwrap() http.ResponseWriter { return rw.ResponseWriter }

func (h *Handler) unavailable(w http.ResponseWriter, r *http.Request, mac net.HardwareAddr, profile, what string, err error) {
	h.log.ErrorContext(r.Context(), "boot file unavailable", "mac", mac.String(), "profile", profile, "file", what, "err", err)
	textError(w, http.StatusInternalServerError, fmt.Sprintf("the %s of profile %q cannot be read", what, profile))
}

// binary serves one iPXE binary from the top level of the TFTP root.
func (h *Handler) binary(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	if !binaryName(name) || h.opts.IPXE == nil {
		textError(w, http.StatusNotFound, "no such iPXE binary")
		return
	}
	f, err := h.opts.IPXE.Open(name)
	if err != nil {
		textError(w, http.StatusNotFound, "no such iPXE binary")
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		textError(w, http.StatusNotFound, "no such iPXE binary")
		return
	}
	content, ok := f.(io.ReadSeeker)
	if !ok {
		body, err := io.ReadAll(io.LimitReader(f, maxBinary))
		if err != nil {
			textError(w, http.StatusInternalServerError, "the iPXE binary cannot be read")
			return
		}
		content = strings.NewReader(string(body))
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	http.ServeContent(w, r, "", fi.ModTime(), content)
}

// binaryName accepts a plain file name: no directories, no dot files.
func binaryName(name string) bool {
	return fs.ValidPath(name) && name != "" && !strings.ContainsAny(name, `/\`) && !strings.HasPrefix(name, ".")
}

// appendixCache keeps the appendix built for each distinct config.ign, so a
// request costs no compression once its host has been served. It forgets
// everything when it reaches its limit.
type appendixCache struct {
	mu    sync.Mutex
	limit int
	m     map[[32]byte][]byte
}

func newAppendixCache(limit int) *appendixCache {
	return &appendixCache{limit: limit, m: map[[32]byte][]byte{}}
}

func (c *appendixCache) get(ignition []byte) ([]byte, error) {
	k := sha256.Sum256(ignition)
	c.mu.Lock()
	app, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return app, nil
	}
	app, err := initrd.Appendix(ignition)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if len(c.m) >= c.limit {
		clear(c.m)
	}
	c.m[k] = app
	c.mu.Unlock()
	return app, nil
}
