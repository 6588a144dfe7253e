package httpboot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/rackboot/rackboot/boot"
	"github.com/rackboot/rackboot/ipxe"
)

// ErrOptions is wrapped by the error New returns for unusable options.
var ErrOptions = errors.New("httpboot: bad options")

// Chooser says what a MAC boots; *boot.Holder and *boot.Catalog implement
// it, and so will the engine. An error wrapping boot.ErrNoBoot means the MAC
// gets no boot.
type Chooser interface {
	Choose(ctx context.Context, mac net.HardwareAddr) (boot.Choice, error)
}

// Options configures a Handler.
type Options struct {
	BaseURL string       // http://<advertise>:<port>, no trailing slash; goes into scripts
	Boot    Chooser      // usually the *boot.Holder that reloads swap
	IPXE    fs.FS        // the TFTP root with the iPXE binaries; nil serves none
	Images  DiskImages   // the image sets' disk images; nil serves none
	Rootfs  RootfsImages // the CoreOS image sets' live rootfs; nil serves none
	Agents  Agents       // the rackboot-agent binaries; nil serves none
	Logger  *slog.Logger // nil discards
}

// Handler serves the boot URLs. Create it with New.
type Handler struct {
	opts       Options
	log        *slog.Logger
	mux        *http.ServeMux
	appendices *appendixCache
}

// New checks opts and returns the handler.
func New(opts Options) (*Handler, error) {
	if err := ipxe.CheckBaseURL(opts.BaseURL); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOptions, err)
	}
	if opts.Boot == nil {
		return nil, fmt.Errorf("%w: no Chooser (the boot catalog holder)", ErrOptions)
	}
	h := &Handler{opts: opts, log: opts.Logger, mux: http.NewServeMux(), appendices: newAppendixCache(4096)}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	h.mux.Handle("GET /boot.ipxe", h.logged(h.chain))
	h.mux.Handle("GET /boot/{mac}/script.ipxe", h.logged(h.withMAC(h.script)))
	h.mux.Handle("GET /boot/{mac}/kernel", h.logged(h.withMAC(h.kernel)))
	h.mux.Handle("GET /boot/{mac}/initrd", h.logged(h.withMAC(h.initrd)))
	h.mux.Handle("GET /ipxe/{file}", h.logged(h.binary))
	h.mux.Handle("GET /images/{image_set}/disk.img", h.logged(h.diskImage))
	h.mux.Handle("GET /images/{image_set}/rootfs.img", h.logged(h.rootfs))
	h.mux.Handle("GET /agent/{arch}/rackboot-agent", h.logged(h.agent))
	h.mux.Handle("GET /", h.logged(func(w http.ResponseWriter, r *http.Request) {
		textError(w, http.StatusNotFound, "no such boot resource: "+r.URL.Path)
	}))
	return h, nil
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mux.ServeHTTP(w, r)
}

// macHandler serves a request for one MAC.
type macHandler func(w http.ResponseWriter, r *http.Request, mac net.HardwareAddr)

// withMAC parses {mac}: 400 when it is malformed.
func (h *Handler) withMAC(next macHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		mac, err := boot.ParseMAC(r.PathValue("mac"))
		if err != nil {
			textError(w, http.StatusBadRequest, err.Error())
			return
		}
		next(w, r, mac)
	}
}

// choose asks the Chooser and answers 404 (no boot) or 500 itself; ok
// reports whether the caller should go on.
func (h *Handler) choose(w http.ResponseWriter, r *http.Request, mac net.HardwareAddr) (boot.Choice, bool) {
	ch, err := h.opts.Boot.Choose(r.Context(), mac)
	switch {
	case errors.Is(err, boot.ErrNoBoot):
		textError(w, http.StatusNotFound, err.Error())
		return ch, false
	case err != nil:
		h.log.ErrorContext(r.Context(), "choosing a boot", "mac", mac.String(), "err", err)
		textError(w, http.StatusInternalServerError, "internal error choosing a boot for "+mac.String())
		return ch, false
	}
	return ch, true
}

func (h *Handler) chain(w http.ResponseWriter, r *http.Request) {
	script, err := ipxe.ChainScript(h.opts.BaseURL)
	if err != nil { // New checked the URL; this is defence in depth
		textError(w, http.StatusInternalServerError, "internal error rendering the chain script")
		return
	}
	writeScript(w, script)
}

func (h *Handler) script(w http.ResponseWriter, r *http.Request, mac net.HardwareAddr) {
	ch, ok := h.choose(w, r, mac)
	if !ok {
		return
	}
	if ch.Action == boot.ActionExit {
		writeScript(w, ipxe.ExitScript())
		return
	}
	script, err := ipxe.BootScript(ipxe.Boot{BaseURL: h.opts.BaseURL, MAC: mac, Cmdline: ch.Cmdline})
	if err != nil {
		h.log.ErrorContext(r.Context(), "rendering a boot script", "mac", mac.String(), "profile", ch.Profile, "err", err)
		textError(w, http.StatusInternalServerError, "internal error rendering the boot script for "+mac.String())
		return
	}
	writeScript(w, script)
}

func writeScript(w http.ResponseWriter, script []byte) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(script)
}

func textError(w http.ResponseWriter, code int, msg string) {
	http.Error(w, msg, code)
}

// statusWriter records what was answered, for the request log.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(p []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	n, err := s.ResponseWriter.Write(p)
	s.bytes += int64(n)
	return n, err
}

// ReadFrom keeps the connection's own ReadFrom (and so sendfile) reachable.
func (s *statusWriter) ReadFrom(src io.Reader) (int64, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	n, err := io.Copy(s.ResponseWriter, src)
	s.bytes += n
	return n, err
}

// Unwrap lets http.ResponseController reach the connection.
func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// logged logs every request with its MAC (when the path has one), status,
// size and duration.
func (h *Handler) logged(next http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		next(sw, r)
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		attrs := []any{"method", r.Method, "path", r.URL.Path, "status", sw.status, "bytes", sw.bytes,
			"remote", r.RemoteAddr, "duration", time.Since(start)}
		if mac, err := boot.ParseMAC(r.PathValue("mac")); err == nil {
			attrs = append(attrs, "mac", mac.String())
		}
		h.log.InfoContext(r.Context(), "http boot request", attrs...)
	})
}
