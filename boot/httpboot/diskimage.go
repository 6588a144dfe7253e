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

// RootfsImages finds the CoreOS live rootfs of an image set by name
// (coreos.live.rootfs_url); the engine implements it over its image sets.
type RootfsImages interface {
	LiveRootfs(ctx context.Context, imageSet string) (DiskImage, bool)
}

// Agents finds the rackboot-agent binary for a Go architecture (amd64,
// arm64) that a stock CoreOS image's discovery Ignition fetches.
type Agents interface {
	Agent(ctx context.Context, goarch string) (DiskImage, bool)
}

// agent serves /agent/{arch}/rackboot-agent as diskImage serves disk
// images (the ETag from the file's identity).
func (h *Handler) agent(w http.ResponseWriter, r *http.Request) {
	arch := r.PathValue("arch")
	if h.opts.Agents == nil || !imageSetName(arch) {
		textError(w, http.StatusNotFound, "no such agent binary")
		return
	}
	img, ok := h.opts.Agents.Agent(r.Context(), arch)
	h.serveImage(w, r, arch, "agent binary", img, ok)
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
	h.serveImage(w, r, name, "disk image", img, ok)
}

// rootfs serves /images/{image_set}/rootfs.img, a CoreOS image set's live
// rootfs, as diskImage serves disk images.
func (h *Handler) rootfs(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("image_set")
	if h.opts.Rootfs == nil || !imageSetName(name) {
		textError(w, http.StatusNotFound, "no such live rootfs")
		return
	}
	img, ok := h.opts.Rootfs.LiveRootfs(r.Context(), name)
	h.serveImage(w, r, name, "live rootfs", img, ok)
}

// serveImage answers with the file of img (404 when !ok).
func (h *Handler) serveImage(w http.ResponseWriter, r *http.Request, name, what string, img DiskImage, ok bool) {
	if !ok || img.Path == "" {
		textError(w, http.StatusNotFound, "no such "+what)
		return
	}
	f, err := os.Open(img.Path)
	var fi os.FileInfo
	if err == nil {
		defer f.Close()
		fi, err = f.Stat()
	}
	if err != nil || !fi.Mode().IsRegular() {
		h.log.ErrorContext(r.Context(), what+" unavailable", "image_set", name, "err", err)
		textError(w, http.StatusInternalServerError, "the "+what+" of image set "+name+" cannot be read")
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
