package main

import (
	"encoding/json"
	"net"
	"net/http"
	"net/netip"

	"github.com/rackboot/rackboot/apitls"
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

// httpsOnly refuses a request that came over plain HTTP from anywhere but
// loopback: the Kubernetes-compatible API carries the admin token and
// Secrets, which do not cross the network in clear (kubectl, with the
// kubeconfig rackbootctl prints, speaks HTTPS on the same port). The
// answer is a Status kubectl prints as it prints a kube-apiserver's.
type httpsOnly struct{ next http.Handler }

func (h httpsOnly) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !apitls.IsTLS(r) && !loopbackPeer(r) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		_ = json.NewEncoder(w).Encode(map[string]any{
			"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{}, "status": "Failure", "reason": "Forbidden", "code": http.StatusForbidden,
			"message": "the Kubernetes-compatible API is served over HTTPS only, but on loopback: use https://" + r.Host + " (rackbootctl kubeconfig)",
		})
		return
	}
	h.next.ServeHTTP(w, r)
}
