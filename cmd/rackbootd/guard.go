package main

import (
	"encoding/json"
	"net"
	"net/http"
	"net/netip"

	"github.com/rackboot/rackboot/engine/auth"
)

// adminGuard keeps the user API (the admin token) to loopback peers unless
// api.admin_remote is true. Agent tokens pass from anywhere: discovered
// hosts reach the API over the hosts' network.
type adminGuard struct {
	next   http.Handler
	token  string
	remote bool
}

func (g adminGuard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !g.remote && !loopbackPeer(r) {
		if cred, err := auth.CredentialFromRequest(r); err == nil && auth.TokenEqual(cred.Token, g.token) {
			refuse(w, "the admin token is accepted only from this machine (loopback); set admin_remote = true in [api] to allow it from the network")
			return
		}
	}
	g.next.ServeHTTP(w, r)
}

// loopbackPeer reports whether r came from 127.0.0.0/8 or ::1.
func loopbackPeer(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Unmap().IsLoopback()
}

// refuse answers 403 with the API's error document.
func refuse(w http.ResponseWriter, reason string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusForbidden)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"code": "403", "href": "", "id": http.StatusForbidden, "kind": "Error", "reason": reason,
	})
}
