package console

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"time"

	"github.com/rackboot/rackboot/engine"
)

// Prefix is where the console is mounted.
const Prefix = "/console/"

// ErrOptions: New was given unusable options.
var ErrOptions = errors.New("console: invalid options")

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Rack describes the rack this appliance belongs to, for the overview.
type Rack struct {
	// Members are the appliances (raft servers) of the rack.
	Members []Member
	// ServiceAddress is the rack's service address (empty: none).
	ServiceAddress string
	// Health is a one-line raft health summary ("ok", or what is wrong).
	Health string
	// Problems are failures to show in a banner (a failed reload, an
	// appliance that is down).
	Problems []string
}

// Member is one appliance of the rack.
type Member struct {
	Name, Address string
	Leader, Voter bool
}

// Options is everything the console needs.
type Options struct {
	// API is the REST API handler (engine/api); required.
	API http.Handler
	// AdminToken is the user API's admin token: the sign-in secret, and
	// what the console's own API requests carry; required.
	AdminToken string
	// Store is followed for live updates; required.
	Store engine.Store
	// LoopbackOnly refuses sign-in from peers other than loopback (the
	// admin token's rule when [api] admin_remote is off).
	LoopbackOnly bool
	// Rack reports the rack's state (nil: a single appliance, no details);
	// its answer is reused for a few seconds.
	Rack func(ctx context.Context) Rack
	// SessionTTL is how long a session lasts (8 h when zero).
	SessionTTL time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Log receives sign-in failures and errors (discarded when nil).
	Log *slog.Logger
}

// Console is the console's handler.
type Console struct {
	api      http.Handler
	admin    string
	loopback bool
	store    engine.Store
	rack     *rackCache
	now      func() time.Time
	log      *slog.Logger
	pages    map[string]*template.Template
	sessions *sessions
	limiter  *limiter
	mux      *http.ServeMux
}

// New returns the console handler; mount it at Prefix.
func New(o Options) (*Console, error) {
	switch {
	case o.API == nil:
		return nil, fmt.Errorf("%w: no API handler", ErrOptions)
	case o.AdminToken == "":
		return nil, fmt.Errorf("%w: no admin token", ErrOptions)
	case o.Store == nil:
		return nil, fmt.Errorf("%w: no store", ErrOptions)
	}
	c := &Console{api: o.API, admin: o.AdminToken, loopback: o.LoopbackOnly, store: o.Store, now: o.Now, log: o.Log}
	if c.now == nil {
		c.now = time.Now
	}
	rack := o.Rack
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if rack == nil {
		rack = func(context.Context) Rack { return Rack{Health: "single appliance"} }
	}
	c.rack = &rackCache{fn: rack, now: c.now}
	ttl := o.SessionTTL
	if ttl <= 0 {
		ttl = 8 * time.Hour
	}
	c.sessions = newSessions(ttl, c.now)
	c.limiter = newLimiter(c.now)
	pages, err := parsePages()
	if err != nil {
		return nil, err
	}
	c.pages = pages
	c.mux = c.routes()
	return c, nil
}

// routes is the console's routing table.
func (c *Console) routes() *http.ServeMux {
	mux := http.NewServeMux()
	static, _ := fs.Sub(staticFS, "static")
	mux.Handle("GET /console/static/", http.StripPrefix("/console/static/", http.FileServerFS(static)))
	mux.HandleFunc("GET /console/login", c.loginPage)
	mux.HandleFunc("POST /console/login", c.login)
	mux.HandleFunc("POST /console/logout", c.signedIn(c.logout))
	mux.HandleFunc("GET /console/{$}", c.signedIn(c.overview))
	mux.HandleFunc("GET /console/live", c.signedIn(c.live))
	mux.HandleFunc("GET /console/infra-envs", c.signedIn(c.infraEnvs))
	mux.HandleFunc("GET /console/hosts", c.signedIn(c.hosts))
	mux.HandleFunc("GET /console/hosts/{ie}/{id}", c.signedIn(c.host))
	mux.HandleFunc("POST /console/hosts/{ie}/{id}", c.signedIn(c.updateHost))
	mux.HandleFunc("POST /console/approve", c.signedIn(c.approve))
	mux.HandleFunc("GET /console/clusters", c.signedIn(c.clusters))
	mux.HandleFunc("GET /console/clusters/{id}", c.signedIn(c.cluster))
	mux.HandleFunc("POST /console/clusters/{id}/{action}", c.signedIn(c.clusterAction))
	mux.HandleFunc("GET /console/clusters/{id}/kubeconfig", c.signedIn(c.kubeconfig))
	mux.HandleFunc("GET /console/baremetal-hosts", c.signedIn(c.bmhs))
	mux.HandleFunc("POST /console/baremetal-hosts/{name}/power", c.signedIn(c.power))
	return mux
}

// csp allows nothing from outside the appliance, no inline script or
// style, and no framing.
const csp = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; form-action 'self'; base-uri 'none'; object-src 'none'; frame-ancestors 'none'"

// ServeHTTP sets the security headers and routes r.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin") // no-referrer would make form posts send "Origin: null"
	h.Set("Cache-Control", "no-store")
	if r.URL.Path == "/console" {
		http.Redirect(w, r, Prefix, http.StatusSeeOther)
		return
	}
	c.mux.ServeHTTP(w, r)
}
