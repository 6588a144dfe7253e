package main

import (
	"net/http"

	"github.com/rackboot/rackboot/cluster"
	"github.com/rackboot/rackboot/cluster/clusterapi"
	"github.com/rackboot/rackboot/cmd/rackbootd/internal/config"
	"github.com/rackboot/rackboot/engine/auth"
)

// storeConfig is the state store's configuration: a one-voter cluster
// under data_dir, or with [cluster] a member of the rack's cluster over
// mutual TLS.
func (d *daemon) storeConfig() cluster.Config {
	cfg := cluster.Config{
		DataDir: d.cfg.Server.DataDir,
		Log:     d.log.With("service", "state"),
	}
	if cl := d.cfg.Cluster; cl != nil {
		cfg.Identity = cl.Identity
		cfg.NodeID = cl.NodeID
		cfg.Bind = cl.Bind
		cfg.Advertise = cl.Advertise
		cfg.Join = cl.Join
		cfg.Bootstrap = clusterPeers(cl.Bootstrap)
	}
	return cfg
}

func clusterPeers(ps []config.ClusterPeer) []cluster.Peer {
	out := make([]cluster.Peer, len(ps))
	for i, p := range ps {
		out[i] = cluster.Peer{ID: p.ID, Addr: p.Addr}
	}
	return out
}

// mountCluster adds the cluster membership API (clusterapi.Path) to the
// HTTP mux: the admin token only, from loopback unless api.admin_remote.
func (d *daemon) mountCluster(mux *http.ServeMux, token string) {
	h := clusterapi.New(d.store, d.log.With("service", "cluster"))
	guarded := adminGuard{next: adminOnly{next: h, token: token}, token: token, remote: d.cfg.API.AdminRemote}
	mux.Handle(clusterapi.Path, guarded)
	mux.Handle(clusterapi.Path+"/", guarded)
}

// adminOnly lets requests carrying the admin token through; others get
// 401.
type adminOnly struct {
	next  http.Handler
	token string
}

func (a adminOnly) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	cred, err := auth.CredentialFromRequest(r)
	if err != nil || !auth.TokenEqual(cred.Token, a.token) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"code":"401","reason":"the cluster API takes the admin token"}` + "\n"))
		return
	}
	a.next.ServeHTTP(w, r)
}

// clusterChanged lists [cluster] when it differs between a and b: the
// store was built from it.
func clusterChanged(a, b *config.Config) bool {
	ca, cb := a.Cluster, b.Cluster
	if ca == nil || cb == nil {
		return ca != cb
	}
	same := ca.NodeID == cb.NodeID && ca.Bind == cb.Bind && ca.Advertise == cb.Advertise &&
		ca.Join == cb.Join && ca.CA == cb.CA && ca.Cert == cb.Cert && ca.Key == cb.Key &&
		ca.VIP == cb.VIP && ca.VIPInterface == cb.VIPInterface && // the service address is set up at start (ha.go)
		len(ca.Bootstrap) == len(cb.Bootstrap)
	for i := 0; same && i < len(ca.Bootstrap); i++ {
		same = ca.Bootstrap[i] == cb.Bootstrap[i]
	}
	return !same
}
