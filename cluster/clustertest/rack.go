package clustertest

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/rackboot/rackboot/cluster"
	"github.com/rackboot/rackboot/cluster/rackca"
)

// openTimeout bounds starting a node (an election included).
const openTimeout = 60 * time.Second

// Rack is a set of nodes sharing a rack CA.
type Rack struct {
	t  testing.TB
	CA *rackca.CA
	// Nodes are the started nodes, in order; Peers their ids and
	// addresses.
	Nodes []*cluster.Store
	Peers []cluster.Peer
	// Log receives every node's log (discarded when nil).
	Log *slog.Logger
}

// Start starts n nodes n1..nN that bootstrap together and returns once
// all of them have opened (a leader is elected). They close when t ends.
func Start(t testing.TB, n int) *Rack {
	t.Helper()
	ca, err := rackca.New(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	r := &Rack{t: t, CA: ca}
	lns := make([]net.Listener, n)
	for i := range n {
		lns[i], err = net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		r.Peers = append(r.Peers, cluster.Peer{ID: fmt.Sprintf("n%d", i+1), Addr: lns[i].Addr().String()})
	}
	type opened struct {
		i  int
		st *cluster.Store
		er error
	}
	ch := make(chan opened, n)
	for i := range n {
		cfg := r.Config(r.Peers[i].ID)
		cfg.Listener, cfg.Bootstrap = lns[i], r.Peers
		go func() {
			st, err := open(cfg)
			ch <- opened{i, st, err}
		}()
	}
	r.Nodes = make([]*cluster.Store, n)
	var errs []error
	for range n {
		o := <-ch
		r.Nodes[o.i] = o.st
		if o.er != nil {
			errs = append(errs, o.er)
		}
	}
	t.Cleanup(r.Close)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return r
}

// Config is the configuration of a new node id with a certificate of the
// rack CA, a fresh data directory, and neither bootstrap nor join (it
// waits to be added).
func (r *Rack) Config(id string) cluster.Config {
	r.t.Helper()
	certPEM, keyPEM, err := r.CA.Issue(id, time.Now())
	if err != nil {
		r.t.Fatal(err)
	}
	ident, err := rackca.NewIdentity(r.CA.CertPEM(), certPEM, keyPEM, time.Now())
	if err != nil {
		r.t.Fatal(err)
	}
	return cluster.Config{DataDir: r.t.TempDir(), Identity: ident, NodeID: id, Bind: "127.0.0.1:0", Log: r.Log}
}

// Pending starts node id, which waits until a member adds it: it returns
// the node's peer address and a function that waits for the node to
// open.
func (r *Rack) Pending(id string) (string, func() (*cluster.Store, error)) {
	r.t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		r.t.Fatal(err)
	}
	cfg := r.Config(id)
	cfg.Listener = ln
	ch := make(chan *cluster.Store, 1)
	errc := make(chan error, 1)
	go func() {
		st, err := open(cfg)
		ch <- st
		errc <- err
	}()
	return ln.Addr().String(), func() (*cluster.Store, error) {
		st, err := <-ch, <-errc
		if st != nil {
			r.Nodes = append(r.Nodes, st)
		}
		return st, err
	}
}

// Leader waits for a leader among the nodes and returns it.
func (r *Rack) Leader() *cluster.Store {
	r.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		for _, st := range r.Nodes {
			if st != nil && st.Leader() {
				return st
			}
		}
		pause := time.NewTimer(20 * time.Millisecond)
		<-pause.C
	}
	r.t.Fatal("no leader within 30s")
	return nil
}

// Close closes every node.
func (r *Rack) Close() {
	for _, st := range r.Nodes {
		if st != nil {
			st.Close()
		}
	}
}

func open(cfg cluster.Config) (*cluster.Store, error) {
	ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
	defer cancel()
	return cluster.Open(ctx, cfg)
}
