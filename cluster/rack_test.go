package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rackboot/rackboot/cluster/rackca"
	"github.com/rackboot/rackboot/engine"
)

// A rack of real raft nodes in this process: real TCP on 127.0.0.1, real
// mutual TLS with a rack CA, hashicorp/raft's default timeouts (shorter
// ones make a leader on this shared 2-core machine step down whenever the
// test process stalls for a few hundred milliseconds).

type rackNode struct {
	id, addr, dir string
	ident         *rackca.Identity
	ln            net.Listener // the first start's listener
	log           *logBuf
	st            *Store
}

type rack struct {
	t     testing.TB
	ca    *rackca.CA
	nodes []*rackNode
}

func newRack(t testing.TB, n int) *rack {
	t.Helper()
	ca, err := rackca.New(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	r := &rack{t: t, ca: ca}
	for i := range n {
		r.add(fmt.Sprintf("n%d", i+1))
	}
	t.Cleanup(func() {
		if t.Failed() {
			for _, nd := range r.nodes {
				t.Logf("log of %s:\n%s", nd.id, nd.log.String())
			}
		}
		for _, nd := range r.nodes {
			if nd.st != nil {
				nd.st.Close()
			}
		}
	})
	return r
}

// add creates a node (not started) with a certificate of the rack CA.
func (r *rack) add(id string) *rackNode {
	nd := newRackNode(r.t, r.ca, id)
	r.nodes = append(r.nodes, nd)
	return nd
}

func newRackNode(t testing.TB, ca *rackca.CA, id string) *rackNode {
	t.Helper()
	certPEM, keyPEM, err := ca.Issue(id, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	ident, err := rackca.NewIdentity(ca.CertPEM(), certPEM, keyPEM, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return &rackNode{id: id, addr: ln.Addr().String(), dir: t.TempDir(), ident: ident, ln: ln, log: &logBuf{}}
}

func (r *rack) peers() []Peer {
	var ps []Peer
	for _, nd := range r.nodes[:3] {
		ps = append(ps, Peer{ID: nd.id, Addr: nd.addr})
	}
	return ps
}

// config is nd's configuration: the first three nodes bootstrap.
func (r *rack) config(nd *rackNode) Config {
	cfg := Config{
		DataDir: nd.dir, Identity: nd.ident, NodeID: nd.id, Bind: nd.addr,
		ApplyTimeout: 20 * time.Second,
		Log:          slog.New(slog.NewTextHandler(nd.log, &slog.HandlerOptions{Level: slog.LevelInfo})),
	}
	if nd.ln != nil {
		cfg.Listener, nd.ln = nd.ln, nil
	}
	cfg.Bootstrap = r.peers()
	return cfg
}

// start opens the nodes concurrently and waits for all of them.
func (r *rack) start(nodes ...*rackNode) {
	r.t.Helper()
	errs := make(chan error, len(nodes))
	for _, nd := range nodes {
		cfg := r.config(nd)
		go func() {
			st, err := openCtx(cfg, 60*time.Second)
			nd.st = st
			errs <- err
		}()
	}
	for range nodes {
		if err := <-errs; err != nil {
			r.t.Fatal(err)
		}
	}
}

func openCtx(cfg Config, d time.Duration) (*Store, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return Open(ctx, cfg)
}

// leader waits for a leader among the running nodes.
func (r *rack) leader() *rackNode {
	r.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		for _, nd := range r.nodes {
			if nd.st != nil && nd.st.Leader() {
				return nd
			}
		}
		waitFor(20 * time.Millisecond)
	}
	r.t.Fatal("no leader within 30s")
	return nil
}

// followers are the running nodes but ld.
func (r *rack) followers(ld *rackNode) []*rackNode {
	var fs []*rackNode
	for _, nd := range r.nodes {
		if nd != ld && nd.st != nil {
			fs = append(fs, nd)
		}
	}
	return fs
}

func (r *rack) stop(nd *rackNode) {
	r.t.Helper()
	if err := nd.st.Close(); err != nil {
		r.t.Logf("close %s: %v", nd.id, err)
	}
	nd.st = nil
}

// kill stops nd as a crash would: its peer port goes first, and it does
// not hand its leadership over.
func (r *rack) kill(nd *rackNode) {
	r.t.Helper()
	nd.st.noHandOver = true
	nd.st.net.Close()
	r.stop(nd)
}

// waitFor pauses a poll loop (polling with a deadline, not a timed
// assertion).
func waitFor(d time.Duration) {
	t := time.NewTimer(d)
	<-t.C
}

// converge waits until every running node dumps the same model.
func (r *rack) converge() []byte {
	r.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var dumps []string
	for time.Now().Before(deadline) {
		dumps = dumps[:0]
		for _, nd := range r.nodes {
			if nd.st != nil {
				if err := nd.st.Barrier(context.Background()); err != nil {
					r.t.Fatalf("%s: barrier: %v", nd.id, err)
				}
				dumps = append(dumps, string(dump(nd.st)))
			}
		}
		same := true
		for _, d := range dumps[1:] {
			same = same && d == dumps[0]
		}
		if same {
			return []byte(dumps[0])
		}
		waitFor(20 * time.Millisecond)
	}
	r.t.Fatalf("nodes did not converge: %d dumps differ", len(dumps))
	return nil
}

// logBuf collects a node's log lines.
type logBuf struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// waitLog waits until the log holds a line with every one of subs.
func (l *logBuf) waitLog(t *testing.T, subs ...string) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		for line := range strings.Lines(l.String()) {
			all := true
			for _, s := range subs {
				all = all && strings.Contains(line, s)
			}
			if all {
				return line
			}
		}
		waitFor(20 * time.Millisecond)
	}
	t.Fatalf("no log line with %q in:\n%s", subs, l.String())
	return ""
}

func createIE(ctx context.Context, st engine.Store, i int) (engine.InfraEnv, error) {
	return engine.ApplyAs[engine.InfraEnv](ctx, st, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: uuid(i), Name: fmt.Sprintf("ie-%d", i)}})
}

// writeIE creates infra-env i as a careful client does: a write whose
// outcome is unknown (leadership lost while committing) is tried again,
// and a duplicate then means the first attempt was applied.
func writeIE(t *testing.T, st engine.Store, i int) {
	t.Helper()
	ctx := context.Background()
	for attempt := 0; ; attempt++ {
		_, err := createIE(ctx, st, i)
		switch {
		case err == nil, attempt > 0 && errors.Is(err, engine.ErrConflict):
			return
		case errors.Is(err, engine.ErrNotLeader) && attempt < 5:
			t.Logf("write %d: %v; trying again", i, err)
		default:
			t.Fatalf("write %d: %v", i, err)
		}
	}
}

func hasIE(st *Store, i int) bool {
	var ok bool
	st.Read(func(m *engine.Model) { _, ok = m.InfraEnv(uuid(i)) })
	return ok
}

// applyAgain applies cmd, again while the outcome is unknown because
// leadership was lost (for commands whose second application answers the
// same: a duplicate, a delete of nothing).
func applyAgain(st engine.Store, cmd engine.Command) (any, error) {
	for attempt := 0; ; attempt++ {
		v, err := st.Apply(context.Background(), cmd)
		if !errors.Is(err, engine.ErrNotLeader) || attempt == 5 {
			return v, err
		}
	}
}
