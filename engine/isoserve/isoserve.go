package isoserve

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/rackboot/rackboot/boot/iso"
	"github.com/rackboot/rackboot/boot/kargs"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
)

// Pattern is the http.ServeMux pattern to mount a Server at (GET also
// matches HEAD).
const Pattern = "GET /images/{infra_env_id}/{token}/discovery.iso"

// MaxURLLen is the longest URL BMCs are known to accept.
const MaxURLLen = 255

// DefaultTTL is how long a handed-out URL works when Options.TTL is zero.
const DefaultTTL = 24 * time.Hour

// Sentinel errors.
var (
	// ErrOptions: New was given unusable options.
	ErrOptions = errors.New("isoserve: invalid options")
	// ErrNoISO: the infra-env's image set names no base ISO.
	ErrNoISO = errors.New("isoserve: no base ISO for the infra-env")
	// ErrURLTooLong: the boot base URL makes image URLs longer than BMCs take.
	ErrURLTooLong = errors.New("isoserve: image URL longer than 255 characters")
)

// Ignitions returns an infra-env's discovery Ignition config (the boot
// selector's, without any per-host part).
type Ignitions interface {
	InfraEnvIgnition(ctx context.Context, infraEnvID string) ([]byte, error)
}

// Options configures a Server.
type Options struct {
	// Store holds the model; required.
	Store engine.Store
	// Keys makes and checks the path tokens; required.
	Keys *auth.KeyRing
	// BaseURL is the boot HTTP server's base as BMCs reach it
	// (http://host:port); required.
	BaseURL string
	// Ignition builds the configs; required.
	Ignition Ignitions
	// TTL is how long a URL works (DefaultTTL when zero).
	TTL time.Duration
	// Now is the clock of the token expiry (time.Now when nil).
	Now func() time.Time
	// Log receives one record per request (discarded when nil).
	Log *slog.Logger
}

// Server serves discovery ISOs and makes their URLs.
type Server struct {
	o Options

	mu     sync.Mutex
	bases  map[string]*iso.Base // by path
	images map[string]built     // by infra-env id
}

// built is the last image made for an infra-env.
type built struct {
	base *iso.Base
	sum  [32]byte // of the Ignition config and the kernel arguments
	img  *iso.Image
}

// New checks o and returns a Server.
func New(o Options) (*Server, error) {
	if o.Store == nil || o.Keys == nil || o.Ignition == nil {
		return nil, fmt.Errorf("%w: Store, Keys and Ignition are required", ErrOptions)
	}
	u, err := url.Parse(o.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.User != nil {
		return nil, fmt.Errorf("%w: BaseURL %q is not an http(s) base URL", ErrOptions, o.BaseURL)
	}
	o.BaseURL = strings.TrimRight(o.BaseURL, "/")
	if o.TTL <= 0 {
		o.TTL = DefaultTTL
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return &Server{o: o, bases: map[string]*iso.Base{}, images: map[string]built{}}, nil
}

// ISOURL returns a URL of infra-env id's discovery ISO that works for
// Options.TTL (it implements bmhctl.Images).
func (s *Server) ISOURL(_ context.Context, id string) (string, error) {
	var ok bool
	s.o.Store.Read(func(m *engine.Model) { _, ok = m.InfraEnv(id) })
	if !ok {
		return "", fmt.Errorf("isoserve: infra-env %s: %w", id, engine.ErrNotFound)
	}
	return s.urlUntil(id, s.o.Now().Add(s.o.TTL))
}

// DiscoveryISOURL returns a URL of infra-env id's discovery ISO that works
// until exp, for the API's downloads/image-url; ok is false when the image
// set the infra-env boots names no base ISO (there is no ISO to hand out).
func (s *Server) DiscoveryISOURL(_ context.Context, id string, exp time.Time) (u string, ok bool, err error) {
	var found bool
	s.o.Store.Read(func(m *engine.Model) {
		var ie engine.InfraEnv
		if ie, found = m.InfraEnv(id); found {
			is, _ := m.BootImageSet(ie)
			ok = is.BaseISO != ""
		}
	})
	if !found {
		return "", false, fmt.Errorf("isoserve: infra-env %s: %w", id, engine.ErrNotFound)
	}
	if !ok {
		return "", false, nil
	}
	u, err = s.urlUntil(id, exp)
	return u, err == nil, err
}

// urlUntil is the URL of infra-env id's ISO with a path token valid until
// exp.
func (s *Server) urlUntil(id string, exp time.Time) (string, error) {
	tok, err := s.o.Keys.NewPathToken(id, exp)
	if err != nil {
		return "", fmt.Errorf("isoserve: path token: %w", err)
	}
	u := s.o.BaseURL + "/images/" + url.PathEscape(id) + "/" + tok + "/discovery.iso"
	if len(u) > MaxURLLen {
		return "", fmt.Errorf("%w: %d characters", ErrURLTooLong, len(u))
	}
	return u, nil
}

// ServeHTTP answers GET and HEAD of Pattern: 403 for a bad or expired
// token (nothing said about the infra-env), 404 for an unknown infra-env,
// 503 when its image set has no base ISO.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("infra_env_id")
	log := s.o.Log.With("infra_env", id, "method", r.Method, "range", r.Header.Get("Range"))
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if err := s.o.Keys.VerifyPathToken(r.PathValue("token"), id); err != nil {
		log.InfoContext(r.Context(), "discovery ISO refused", "err", err)
		http.Error(w, "forbidden", http.StatusForbidden)
		return
	}
	img, err := s.image(r.Context(), id)
	if err != nil {
		code := http.StatusInternalServerError
		switch {
		case errors.Is(err, engine.ErrNotFound):
			code = http.StatusNotFound
		case errors.Is(err, ErrNoISO):
			code = http.StatusServiceUnavailable
		}
		log.WarnContext(r.Context(), "discovery ISO", "status", code, "err", err)
		http.Error(w, http.StatusText(code), code)
		return
	}
	log.DebugContext(r.Context(), "discovery ISO")
	img.ServeHTTP(w, r)
}

// image returns infra-env id's ISO, building it when its config or base
// changed.
func (s *Server) image(ctx context.Context, id string) (*iso.Image, error) {
	var (
		path string
		ok   bool
		set  string
		ka   []kargs.Arg
	)
	s.o.Store.Read(func(m *engine.Model) {
		var ie engine.InfraEnv
		if ie, ok = m.InfraEnv(id); ok {
			is, _ := m.BootImageSet(ie)
			path, set, ka = is.BaseISO, is.Name, ie.KernelArguments
		}
	})
	if !ok {
		s.mu.Lock()
		delete(s.images, id) // the infra-env is gone: forget its image
		s.mu.Unlock()
		return nil, fmt.Errorf("infra-env %s: %w", id, engine.ErrNotFound)
	}
	if path == "" {
		return nil, fmt.Errorf("%w: infra-env %s boots image set %q, which names no base_iso", ErrNoISO, id, set)
	}
	base, err := s.base(path)
	if err != nil {
		return nil, err
	}
	ign, err := s.o.Ignition.InfraEnvIgnition(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("infra-env %s: discovery config: %w", id, err)
	}
	// An ISO without /coreos/kargs.json has nowhere to put them: it boots
	// with its own, and the log says so when the image is built.
	noArea := len(ka) > 0 && base.Layout().Kargs == nil
	if noArea {
		ka = nil
	}
	sum := customSum(ign, ka)
	s.mu.Lock()
	defer s.mu.Unlock()
	if b, ok := s.images[id]; ok && b.base == base && b.sum == sum {
		return b.img, nil
	}
	if noArea {
		s.o.Log.WarnContext(ctx, "the discovery ISO has no kernel argument area (/coreos/kargs.json): the infra-env's kernel_arguments reach iPXE boots only",
			"infra_env", id, "image_set", set)
	}
	img, err := base.Overlay(iso.Custom{Ignition: ign, KernelArgs: ka})
	if err != nil {
		return nil, fmt.Errorf("infra-env %s: %w", id, err)
	}
	s.images[id] = built{base: base, sum: sum, img: img}
	return img, nil
}

// base returns the opened base ISO at path (opened once).
func (s *Server) base(path string) (*iso.Base, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b, ok := s.bases[path]; ok {
		return b, nil
	}
	b, err := iso.OpenBase(path)
	if err != nil {
		return nil, fmt.Errorf("base ISO: %w", err)
	}
	s.bases[path] = b
	return b, nil
}

// Close closes the base ISOs; images served afterwards fail.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for p, b := range s.bases {
		errs = append(errs, b.Close())
		delete(s.bases, p)
	}
	clear(s.images)
	return errors.Join(errs...)
}

// customSum is the digest of what an infra-env's ISO carries.
func customSum(ign []byte, ka []kargs.Arg) [32]byte {
	h := sha256.New()
	fmt.Fprintf(h, "%d:", len(ign))
	h.Write(ign)
	for _, a := range ka {
		fmt.Fprintf(h, "%d:%s%d:%s", len(a.Operation), a.Operation, len(a.Value), a.Value)
	}
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}
