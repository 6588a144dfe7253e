package kubeapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
)

// Options configure the API.
type Options struct {
	// Store holds the objects; required.
	Store engine.Store
	// AdminToken is the bearer token with full access; required.
	AdminToken string
	// Keys verifies agent tokens, which are refused with 403 (nil: they
	// are 401 like any unknown token).
	Keys auth.Verifier
	// Sealer seals Secret data before it is written; required.
	Sealer *engine.Sealer
	// WatchWindow is how many recent changes the watch cache keeps for
	// resuming watches (0: DefaultWatchWindow).
	WatchWindow int
	// Now is the clock of ages in tables (nil: time.Now).
	Now func() time.Time
	// Log receives request failures (nil: discarded).
	Log *slog.Logger
	// Admit is the domain's admission of a write (engine/acm.Admission):
	// cur is the stored object (nil on create), next what would replace
	// it. An error refuses the write (403, as a denying admission
	// webhook) and nothing is written. nil: every write is admitted.
	Admit func(cur *engine.Object, next engine.Object) error
}

// DefaultWatchWindow is the watch cache's default size.
const DefaultWatchWindow = 10_000

// maxBody bounds a request body (the API server's limit is 3 MiB; an
// object is further bounded by engine.MaxObjectBytes).
const maxBody = 3 << 20

// Handler serves the API on Paths.
type Handler struct {
	opts   Options
	log    *slog.Logger
	res    []*Resource
	byGV   map[string]map[string]*Resource // group/version → plural → resource
	byKind map[string]*Resource            // group/Kind
	cache  *watchCache
	proto  *protoCodec
}

// New returns the handler. Call Run to feed its watch cache.
func New(o Options) (*Handler, error) {
	switch {
	case o.Store == nil:
		return nil, errors.New("kubeapi: no store")
	case o.AdminToken == "":
		return nil, errors.New("kubeapi: no admin token")
	case o.Sealer == nil:
		return nil, errors.New("kubeapi: no sealer")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.WatchWindow <= 0 {
		o.WatchWindow = DefaultWatchWindow
	}
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	res := resources()
	if err := loadSchemas(res); err != nil {
		return nil, err
	}
	h := &Handler{opts: o, log: log, res: res, byGV: map[string]map[string]*Resource{}, byKind: map[string]*Resource{}}
	for _, r := range h.res {
		gv := r.GroupVersion()
		if h.byGV[gv] == nil {
			h.byGV[gv] = map[string]*Resource{}
		}
		h.byGV[gv][r.Plural] = r
		h.byKind[r.Group+"/"+r.Kind] = r
	}
	h.cache = newWatchCache(o.Store, h.res, o.WatchWindow)
	pc, err := newProtoCodec()
	if err != nil {
		return nil, err
	}
	h.proto = pc
	return h, nil
}

// Run feeds the watch cache from the store until ctx is done.
func (h *Handler) Run(ctx context.Context) { h.cache.run(ctx) }

// Mount adds the API's paths to mux.
func (h *Handler) Mount(mux *http.ServeMux) {
	for _, p := range Paths {
		mux.Handle(p, h)
	}
}

// Paths are the mux patterns the API is served on.
var Paths = []string{"/api", "/api/v1/", "/apis", "/apis/", "/version", "/openapi/"}

// request is a parsed resource path.
type request struct {
	res        *Resource
	ns, name   string
	sub        string // "" or "status"
	allNS      bool   // a namespaced kind listed across namespaces
	gv, method string
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p, err := auth.Authenticate(r, h.opts.AdminToken, h.opts.Keys)
	switch {
	case err != nil:
		writeStatus(w, newStatus(http.StatusUnauthorized, metav1.StatusReasonUnauthorized, "Unauthorized", nil))
		return
	case !p.IsAdmin(): // an agent token
		writeStatus(w, newStatus(http.StatusForbidden, metav1.StatusReasonForbidden,
			fmt.Sprintf("forbidden: an agent token may not %s %s", strings.ToLower(r.Method), r.URL.Path), nil))
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if h.serveDiscovery(w, r) || h.serveOpenAPI(w, r) {
		return
	}
	req, aerr := h.parse(r)
	if aerr != nil {
		writeStatus(w, aerr)
		return
	}
	if err := h.dispatch(w, r, req); err != nil {
		if errors.Is(err, context.Canceled) {
			return
		}
		var ae *apiError
		if !errors.As(err, &ae) {
			h.log.Error("kube API request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		}
		writeStatus(w, err)
	}
}

// parse splits /api/v1/... and /apis/group/version/... into a request.
func (h *Handler) parse(r *http.Request) (*request, *apiError) {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	var gv string
	var rest []string
	switch {
	case len(parts) >= 3 && parts[0] == "api":
		gv, rest = parts[1], parts[2:]
	case len(parts) >= 4 && parts[0] == "apis":
		gv, rest = parts[1]+"/"+parts[2], parts[3:]
	default:
		return nil, notFoundPath(r)
	}
	kinds := h.byGV[gv]
	if kinds == nil {
		return nil, notFoundPath(r)
	}
	req := &request{gv: gv, method: r.Method}
	if len(rest) >= 3 && rest[0] == "namespaces" && kinds[rest[2]] != nil && kinds[rest[2]].Namespaced {
		req.ns, rest = rest[1], rest[2:]
	}
	req.res = kinds[rest[0]]
	if req.res == nil || len(rest) > 3 || (req.ns == "" && req.res.Namespaced && len(rest) > 1) {
		return nil, notFoundPath(r)
	}
	req.allNS = req.res.Namespaced && req.ns == ""
	if len(rest) >= 2 {
		req.name = rest[1]
	}
	if len(rest) == 3 {
		if rest[2] != "status" || !req.res.Status {
			return nil, notFoundPath(r)
		}
		req.sub = rest[2]
	}
	return req, nil
}

func notFoundPath(r *http.Request) *apiError {
	return newStatus(http.StatusNotFound, metav1.StatusReasonNotFound,
		fmt.Sprintf("the server could not find the requested resource (%s %s)", r.Method, r.URL.Path), nil)
}

func (h *Handler) dispatch(w http.ResponseWriter, r *http.Request, req *request) error {
	switch {
	case req.name == "" && r.Method == http.MethodGet && isWatch(r):
		return h.watch(w, r, req)
	case req.name == "" && r.Method == http.MethodGet:
		return h.list(w, r, req)
	case req.name == "" && r.Method == http.MethodPost && !req.allNS:
		return h.create(w, r, req)
	case req.name == "":
		return errMethod(r.Method)
	case r.Method == http.MethodGet:
		return h.get(w, r, req)
	case r.Method == http.MethodPut:
		return h.update(w, r, req)
	case r.Method == http.MethodPatch:
		return h.patch(w, r, req)
	case r.Method == http.MethodDelete && req.sub == "":
		return h.delete(w, r, req)
	}
	return errMethod(r.Method)
}

func isWatch(r *http.Request) bool {
	v := r.URL.Query().Get("watch")
	return v == "true" || v == "1"
}
