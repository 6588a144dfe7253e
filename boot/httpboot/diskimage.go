package httpboot

import (
	"context"
	"net/http"
	"os"
	"strings"

	"github.com/rackboot/rackboot/boot/initrd"
)

// DiskImage is an image set's OS disk image on the appliance: its path,
// hex sha256 ("": unknown) and size.
type DiskImage struct {
	Path   string
	SHA256 string
	Size   int64
}

// DiskImages finds the disk image of an image set by name; the engine
// implements it over its image sets.
type DiskImages interface {
	DiskImage(ctx context.Context, imageSet string) (DiskImage, bool)
}

// imageSetName accepts a plain name: no path separators, no dot files.
func imageSetName(name string) bool {
	return name != "" && len(name) <= 253 && !strings.ContainsAny(name, "/\\\x00") && !strings.HasPrefix(name, ".")
}

// diskImage serves /images/{image_set}/disk.img: GET and HEAD with Range
// and a strong ETag (the sha256 when known), streamed from the file with
// sendfile(2). An unknown image set, or one without a disk image, is 404.
func (h *Handler) diskImage(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("image_set")
	if h.opts.Images == nil || !imageSetName(name) {
		textError(w, http.StatusNotFound, "no such disk image")
		return
	}
	img, ok := h.opts.Images.DiskImage(r.Context(), name)
	if !ok || img.Path == "" {
		textError(w, http.StatusNotFound, "no such disk image")
		return
	}
	f, err := os.Open(img.Path)
	var fi os.FileInfo
	if err == nil {
		defer f.Close()
		fi, err = f.Stat()
	}
	if err != nil || !fi.Mode().IsRegular() {
		h.log.ErrorContext(r.Context(), "disk image unavailable", "image_set", name, "err", err)
		textError(w, http.StatusInternalServerError, "the disk image of image set "+name+" cannot be read")
		return
	}
	etag := initrd.ETag(initrd.FileIdentity(fi))
	if img.SHA256 != "" && (img.Size == 0 || img.Size == fi.Size()) {
		etag = `"sha256-` + img.SHA256 + `"`
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("ETag", etag)
	http.ServeContent(w, r, "", fi.ModTime(), f)
}
