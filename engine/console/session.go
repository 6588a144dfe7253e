package console

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"
)

// cookieName is the session cookie.
const cookieName = "rackboot_console"

// session is one signed-in browser.
type session struct {
	csrf    string
	expires time.Time
}

// sessions are this appliance's signed-in browsers, by opaque id.
type sessions struct {
	mu  sync.Mutex
	ttl time.Duration
	now func() time.Time
	m   map[string]session
}

func newSessions(ttl time.Duration, now func() time.Time) *sessions {
	return &sessions{ttl: ttl, now: now, m: map[string]session{}}
}

// randomToken is 32 random bytes, URL-safe base64.
func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return base64.RawURLEncoding.EncodeToString(b)
}

// create starts a session and returns its id.
func (s *sessions) create() (string, session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	for id, ss := range s.m { // drop expired ones
		if now.After(ss.expires) {
			delete(s.m, id)
		}
	}
	id := randomToken()
	ss := session{csrf: randomToken(), expires: now.Add(s.ttl)}
	s.m[id] = ss
	return id, ss
}

// get returns the live session id names.
func (s *sessions) get(id string) (session, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, ok := s.m[id]
	if !ok || s.now().After(ss.expires) {
		delete(s.m, id)
		return session{}, false
	}
	return ss, true
}

func (s *sessions) drop(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, id)
}

// Sign-in rate limit: a client address gets maxFailures wrong tokens per
// failWindow; then every attempt is refused until the window passes.
const (
	maxFailures = 5
	failWindow  = time.Minute
)

// limiter counts wrong tokens per client address.
type limiter struct {
	mu  sync.Mutex
	now func() time.Time
	m   map[string]failures
}

type failures struct {
	n     int
	since time.Time
}

func newLimiter(now func() time.Time) *limiter { return &limiter{now: now, m: map[string]failures{}} }

// blocked reports whether addr has used up its attempts.
func (l *limiter) blocked(addr string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	f, ok := l.m[addr]
	if ok && l.now().Sub(f.since) > failWindow {
		delete(l.m, addr)
		return false
	}
	return f.n >= maxFailures
}

// maxTracked bounds the addresses the limiter remembers; past it,
// addresses whose window has passed are forgotten.
const maxTracked = 4096

// fail counts a wrong token from addr.
func (l *limiter) fail(addr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.m) >= maxTracked {
		for a, f := range l.m {
			if l.now().Sub(f.since) > failWindow {
				delete(l.m, a)
			}
		}
	}
	f := l.m[addr]
	if f.n == 0 {
		f.since = l.now()
	}
	f.n++
	l.m[addr] = f
}

// clientAddr is the request's peer address without the port.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// loopback reports whether addr is 127.0.0.0/8 or ::1.
func loopback(addr string) bool {
	a, err := netip.ParseAddr(addr)
	return err == nil && a.Unmap().IsLoopback()
}

// loginPage shows the sign-in form.
func (c *Console) loginPage(w http.ResponseWriter, r *http.Request) {
	c.render(w, r, http.StatusOK, "login", page{Title: "Sign in"})
}

// login checks the admin token and starts a session. A wrong token is
// refused (401) and counted; a client with too many gets 429.
func (c *Console) login(w http.ResponseWriter, r *http.Request) {
	addr := clientAddr(r)
	if !sameOrigin(r) {
		c.render(w, r, http.StatusForbidden, "login", page{Title: "Sign in", Error: "Cross-site sign-in refused."})
		return
	}
	if c.loopback && !loopback(addr) {
		c.render(w, r, http.StatusForbidden, "login", page{Title: "Sign in",
			Error: "The admin token is accepted only from the appliance itself (loopback); set admin_remote = true in [api] to sign in from the network."})
		return
	}
	if c.limiter.blocked(addr) {
		c.log.Warn("console sign-in rate-limited", "client", addr)
		w.Header().Set("Retry-After", "60")
		c.render(w, r, http.StatusTooManyRequests, "login", page{Title: "Sign in",
			Error: "Too many wrong tokens from this address; try again in a minute."})
		return
	}
	tok := r.PostFormValue("token")
	if subtle.ConstantTimeCompare([]byte(tok), []byte(c.admin)) != 1 {
		c.limiter.fail(addr)
		c.log.Warn("console sign-in refused: wrong token", "client", addr)
		c.render(w, r, http.StatusUnauthorized, "login", page{Title: "Sign in", Error: "Wrong token."})
		return
	}
	id, _ := c.sessions.create()
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: id, Path: Prefix, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	c.log.Info("console sign-in", "client", addr)
	http.Redirect(w, r, Prefix, http.StatusSeeOther)
}

// logout ends the session.
func (c *Console) logout(w http.ResponseWriter, r *http.Request, _ session) {
	if ck, err := r.Cookie(cookieName); err == nil {
		c.sessions.drop(ck.Value)
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: Prefix, MaxAge: -1, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	http.Redirect(w, r, Prefix+"login", http.StatusSeeOther)
}

// sameOrigin refuses a request whose Origin (browsers send it on POST)
// names another origin than the one it was sent to.
func sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return o == scheme+"://"+r.Host
}

// signedIn wraps h: no session redirects to the sign-in page; a change
// (POST) must carry the session's CSRF token and come from this origin.
func (c *Console) signedIn(h func(http.ResponseWriter, *http.Request, session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ck, err := r.Cookie(cookieName)
		var (
			ss session
			ok bool
		)
		if err == nil {
			ss, ok = c.sessions.get(ck.Value)
		}
		if !ok {
			if r.Method == http.MethodGet && r.Header.Get("Accept") != "text/event-stream" {
				http.Redirect(w, r, Prefix+"login", http.StatusSeeOther)
				return
			}
			http.Error(w, "not signed in", http.StatusUnauthorized)
			return
		}
		if r.Method == http.MethodPost {
			tok := r.PostFormValue("csrf")
			if !sameOrigin(r) || subtle.ConstantTimeCompare([]byte(tok), []byte(ss.csrf)) != 1 {
				http.Error(w, "missing or wrong CSRF token: reload the page", http.StatusForbidden)
				return
			}
		}
		h(w, r, ss)
	}
}
