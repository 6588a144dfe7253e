package apitls

import (
	"context"
	"net"
	"net/http"
)

// connKey is the context key ConnContext stores a connection under.
type connKey struct{}

// ConnContext is the http.Server ConnContext that lets IsTLS tell a
// request's transport when the server's listener is a Listener (to
// net/http its connections are not *tls.Conn, so http.Request.TLS stays
// nil). It only records the connection: Accept never waits for a client.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// IsTLS reports whether r came over TLS: a net/http TLS server's request,
// or one over a Listener connection that turned out to be TLS.
func IsTLS(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	c, ok := r.Context().Value(connKey{}).(*conn)
	return ok && c.TLS()
}
