package pxeserve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/rackboot/rackboot/boot/initrd"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/bootsel"
)

// Pattern is the http.ServeMux pattern to mount a Server at (GET also
// matches HEAD).
const Pattern = "GET /images/{infra_env_id}/{token}/pxe/{file}"

// ErrOptions: New was given unusable options.
var ErrOptions = errors.New("pxeserve: invalid options")

// Source gives an infra-env's PXE artifacts (*bootsel.Selector).
type Source interface {
	InfraEnvPXE(ctx context.Context, id string) (bootsel.PXE, error)
}

// Options configures a Server.
type Options struct {
	Keys    *auth.KeyRing // makes and checks the path tokens; required
	BaseURL string        // the boot HTTP server's base (http://host:port); required
	Source  Source        // required
	Log     *slog.Logger  // one record per request (discarded when nil)
}

// Server serves the artifacts and makes their URLs.
type Server struct{ o Options }

// New checks o and returns a Server.
func New(o Options) (*Server, error) {
	if o.Keys == nil || o.Source == nil {
		return nil, fmt.Errorf("%w: Keys and Source are required", ErrOptions)
	}
	u, err := url.Parse(o.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: BaseURL %q is not an http(s) base URL", ErrOptions, o.BaseURL)
	}
	o.BaseURL = strings.TrimRight(o.BaseURL, "/")
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return &Server{o: o}, nil
}

// BootArtifacts returns infra-env id's kernel and initrd URLs and its
// live rootfs URL ("" when its image set has none). An infra-env without
// a boot profile is an error (bootsel.ErrNoImage).
func (s *Server) BootArtifacts(ctx context.Context, id string) (kernel, initrdURL, rootfs string, err error) {
	pxe, err := s.o.Source.InfraEnvPXE(ctx, id)
	if err != nil {
		return "", "", "", err
	}
	tok, err := s.o.Keys.NewPathToken(id, time.Time{})
	if err != nil {
		return "", "", "", fmt.Errorf("pxeserve: path token: %w", err)
	}
	base := s.o.BaseURL + "/images/" + url.PathEscape(id) + "/" + tok + "/pxe/"
	if pxe.RootfsImageSet != "" {
		rootfs = s.o.BaseURL + "/images/" + url.PathEscape(pxe.RootfsImageSet) + "/rootfs.img"
	}
	return base + "kernel", base + "initrd", rootfs, nil
}

// ServeHTTP answers GET and HEAD of Pattern: 403 for a bad token (nothing
// said about the infra-env), 404 for an unknown infra-env or file, 503
// when the infra-env has no boot profile.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id, file := r.PathValue("infra_env_id"), r.PathValue("file")
	log := s.o.Log.With("infra_env", id, "file", file, "method", r.Method, "range", r.Header.Get("Range"))
	if err := s.o.Keys.VerifyPathToken(r.PathValue("token"), id); err != nil {
		log.WarnContext(r.Context(), "PXE artifact: bad token", "err", err)
		http.Error(w, "forbidden", http.StatusForbidden)
		return
	}
	if file != "kernel" && file != "initrd" {
		http.Error(w, "no such PXE artifact: "+file, http.StatusNotFound)
		return
	}
	pxe, err := s.o.Source.InfraEnvPXE(r.Context(), id)
	switch {
	case errors.Is(err, engine.ErrNotFound):
		http.Error(w, "no such infra-env", http.StatusNotFound)
		return
	case err != nil:
		log.WarnContext(r.Context(), "PXE artifact", "err", err)
		http.Error(w, "the infra-env has no PXE artifacts", http.StatusServiceUnavailable)
		return
	}
	log.DebugContext(r.Context(), "PXE artifact")
	w.Header().Set("Content-Type", "application/octet-stream")
	if file == "kernel" {
		s.serveFile(w, r, pxe.Kernel, log)
		return
	}
	app, err := initrd.Appendix(pxe.Ignition)
	if err == nil {
		var ird *initrd.Initrd
		if ird, err = initrd.Open(pxe.Initrd, app); err == nil {
			defer ird.Close()
			w.Header().Set("ETag", ird.ETag())
			http.ServeContent(w, r, "", time.Time{}, ird.ReadSeeker())
			return
		}
	}
	log.ErrorContext(r.Context(), "PXE initrd", "err", err)
	http.Error(w, "internal error building the initrd", http.StatusInternalServerError)
}

func (s *Server) serveFile(w http.ResponseWriter, r *http.Request, path string, log *slog.Logger) {
	f, err := os.Open(path)
	if err != nil {
		log.ErrorContext(r.Context(), "PXE kernel", "err", err)
		http.Error(w, "internal error opening the kernel", http.StatusInternalServerError)
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		http.Error(w, "internal error opening the kernel", http.StatusInternalServerError)
		return
	}
	http.ServeContent(w, r, "", fi.ModTime(), f)
}
