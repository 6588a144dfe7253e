package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"
	"go.etcd.io/bbolt"

	"github.com/rackboot/rackboot/cluster/tlsnet"
	"github.com/rackboot/rackboot/engine"
)

// ErrOpen is wrapped by errors of Open.
var ErrOpen = errors.New("cluster: open")

// Store is a raft node holding the engine's model; it implements
// engine.Store. Create it with Open and Close it when done.
type Store struct {
	cfg     Config
	id      raft.ServerID
	raft    *raft.Raft
	fsm     *fsm
	logs    *raftboltdb.BoltStore
	trans   raft.Transport
	leader  *leaderFeed
	net     *tlsnet.Net // the peer port (rack clusters only)
	pool    *pool       // RPC connections to peers
	changes *leaderWatch
	members memberCache
	cw      configWatch
	codec   *engine.Codec // checks forwarded commands
	nudger  *nudger
	snaps   raft.SnapshotStore
	// applyLat is how long Apply took (Stats).
	applyLat latency
	// noHandOver makes Close stop without handing the leadership over (a
	// crash, for tests).
	noHandOver bool
	stop       chan struct{}   // closed by Close
	life       context.Context // canceled by Close: bounds the node's own requests
	endLife    context.CancelFunc
	wg         sync.WaitGroup
}

var (
	_ engine.Store  = (*Store)(nil)
	_ engine.Termer = (*Store)(nil)
)

// Open opens (or creates) the node's raft state under cfg.DataDir/raft,
// bootstraps a cluster when the state is empty (a one-voter cluster, or
// cfg.Bootstrap's members; or asks cfg.Join's member to add it), and
// returns once a leader is known and this node has applied everything it
// had committed, or ctx ends.
func Open(ctx context.Context, cfg Config) (_ *Store, err error) {
	cfg = cfg.withDefaults()
	dir := filepath.Join(cfg.DataDir, "raft")
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOpen, err)
	}
	if err := cfg.checkIdentity(); err != nil {
		return nil, err
	}
	id, err := nodeID(dir, cfg.NodeID)
	if err != nil {
		return nil, err
	}
	s := &Store{cfg: cfg, id: id, stop: make(chan struct{}), codec: engine.NewCodec()}
	s.life, s.endLife = context.WithCancel(context.Background())
	mach := engine.NewMachine()
	mach.SetSealer(cfg.Sealer)
	s.fsm = newFSM(mach)
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	if err := s.openRaft(dir); err != nil {
		return nil, err
	}
	if err := s.waitReady(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// checkIdentity checks that a rack node's id is the one its certificate
// names.
func (c Config) checkIdentity() error {
	if c.Identity == nil {
		return nil
	}
	if c.NodeID != c.Identity.NodeID {
		return fmt.Errorf("%w: the node certificate names node %q, not %q", ErrOpen, c.Identity.NodeID, c.NodeID)
	}
	return nil
}

// logCacheEntries is how many of the newest log entries are kept in memory
// (as Consul and Nomad do).
const logCacheEntries = 512

func (s *Store) openRaft(dir string) error {
	rc := s.cfg.raftConfig(s.id)
	// The freelist is not written at each commit (rebuilt at open, as etcd
	// does): a log that is appended to and truncated all day grows a large
	// one, which would cost every commit.
	logs, err := raftboltdb.New(raftboltdb.Options{
		Path:        filepath.Join(dir, "raft.db"),
		BoltOptions: &bbolt.Options{Timeout: time.Second, NoFreelistSync: true, FreelistType: bbolt.FreelistMapType},
	})
	if err != nil {
		return fmt.Errorf("%w: log store (is another rackbootd using %s?): %w", ErrOpen, dir, err)
	}
	s.logs = logs
	snaps, err := raft.NewFileSnapshotStoreWithLogger(dir, 2, rc.Logger)
	if err != nil {
		return fmt.Errorf("%w: snapshot store: %w", ErrOpen, err)
	}
	s.snaps = snaps
	if s.trans, err = s.transport(rc); err != nil {
		return err
	}
	s.fsm.onConfig = s.configChanged
	if err := s.recoverFromPeersFile(dir, rc, snaps); err != nil {
		return err
	}
	existing, err := raft.HasExistingState(logs, logs, snaps)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrOpen, err)
	}
	if !existing {
		if err := s.bootstrap(rc, snaps); err != nil {
			return err
		}
	}
	// The newest entries are kept in memory too: the leader reads each
	// entry back to send it to every follower, which would otherwise be a
	// bolt read per entry and follower.
	cached, err := raft.NewLogCache(logCacheEntries, logs)
	if err != nil {
		return fmt.Errorf("%w: log cache: %w", ErrOpen, err)
	}
	r, err := raft.NewRaft(rc, s.fsm, cached, logs, snaps, s.trans)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrOpen, err)
	}
	s.raft = r
	s.leader = newLeaderFeed(r)
	s.changes = newLeaderWatch(r)
	s.members.r.Store(r)
	s.nudger = &nudger{r: r, stop: s.stop, wg: &s.wg}
	if existing && s.net != nil && !s.isMember(string(s.id)) {
		s.cfg.Log.Warn("this node is not a member of its raft cluster (it was removed): it takes no part until a member adds it again (rackbootctl cluster join)", "node", string(s.id))
	}
	if s.net != nil {
		s.net.Serve(s.serveRPC)
		if !existing && s.cfg.Join != "" {
			s.goJoin()
		}
	}
	return nil
}

// bootstrap writes the first configuration of an empty node: itself
// alone, or the Bootstrap members. A joining node writes none.
func (s *Store) bootstrap(rc *raft.Config, snaps raft.SnapshotStore) error {
	var boot raft.Configuration
	switch {
	case s.cfg.Identity == nil:
		boot.Servers = []raft.Server{{ID: s.id, Address: s.trans.LocalAddr()}}
	case len(s.cfg.Bootstrap) > 0:
		var self bool
		for _, p := range s.cfg.Bootstrap {
			boot.Servers = append(boot.Servers, raft.Server{ID: raft.ServerID(p.ID), Address: raft.ServerAddress(p.Addr)})
			self = self || (p.ID == string(s.id) && raft.ServerAddress(p.Addr) == s.trans.LocalAddr())
		}
		if !self {
			return fmt.Errorf("%w: the bootstrap members do not list this node as %s@%s", ErrOpen, s.id, s.trans.LocalAddr())
		}
	default:
		s.cfg.Log.Info("no raft state yet: waiting to be added to the cluster", "node", string(s.id), "join", s.cfg.Join)
		return nil
	}
	if err := raft.BootstrapCluster(rc, s.logs, s.logs, snaps, s.trans, boot); err != nil {
		return fmt.Errorf("%w: bootstrap: %w", ErrOpen, err)
	}
	s.cfg.Log.Info("bootstrapped a raft cluster", "node", string(s.id), "voters", len(boot.Servers))
	return nil
}

// localAddr is the raft address of a one-voter appliance's in-memory
// transport: it names nothing on the network.
const localAddr raft.ServerAddress = "local"

// transport is a rack member's mutual-TLS peer port, or, for a one-voter
// appliance, an in-memory transport: a lone node sends and receives no raft
// RPCs, so nothing outside the process can reach its log.
func (s *Store) transport(rc *raft.Config) (raft.Transport, error) {
	if s.cfg.Identity != nil {
		return s.tlsTransport(rc)
	}
	_, t := raft.NewInmemTransport(localAddr)
	return t, nil
}

// tlsTransport opens the peer port: mutual TLS, raft and RPCs on it.
func (s *Store) tlsTransport(rc *raft.Config) (raft.Transport, error) {
	ln := s.cfg.Listener
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", s.cfg.Bind); err != nil {
			return nil, fmt.Errorf("%w: peer port: %w", ErrOpen, err)
		}
	}
	adv, err := advertise(s.cfg.Advertise, ln.Addr())
	if err != nil {
		ln.Close()
		return nil, err
	}
	s.net = tlsnet.New(tlsnet.Config{
		Identity: s.cfg.Identity, Listener: ln, Advertise: adv,
		Admit: s.admit, Expect: s.expect, Log: s.cfg.Log, Now: s.cfg.Now,
	})
	s.pool = newPool(s.net)
	// MaxRPCsInFlight 1 turns hashicorp/raft's pipelined replication off:
	// when a follower answers a pipelined AppendEntries with a failure (a
	// disk stall, a full disk) or a newer term, the pipeline's sender can
	// block for good, so the leader never replicates to that follower
	// again while its heartbeats go on, and Shutdown hangs
	// (hashicorp/raft#612). Without it each AppendEntries waits for its
	// answer, which batches no worse on a LAN.
	return raft.NewNetworkTransportWithConfig(&raft.NetworkTransportConfig{
		Stream: s.net.Raft(), MaxPool: 3, Timeout: 10 * time.Second, Logger: rc.Logger,
		MaxRPCsInFlight: 1,
	}), nil
}

// advertise is the address peers dial: a, else the listener's address,
// which must then be a specific IP.
func advertise(a string, ln net.Addr) (net.Addr, error) {
	if a == "" {
		t, ok := ln.(*net.TCPAddr)
		if !ok || t.IP.IsUnspecified() {
			return nil, fmt.Errorf("%w: the peer port listens on %s: set the address peers dial (advertise)", ErrOpen, ln)
		}
		return ln, nil
	}
	t, err := net.ResolveTCPAddr("tcp", a)
	if err != nil || t.IP == nil || t.IP.IsUnspecified() || t.Port == 0 {
		return nil, fmt.Errorf("%w: advertise %q is not ip:port", ErrOpen, a)
	}
	return t, nil
}

// waitReady waits until a leader is known and this node has applied
// everything committed before.
func (s *Store) waitReady(ctx context.Context) error {
	if s.net != nil {
		s.cfg.Log.Info("waiting for a raft leader and catching up", "node", string(s.id), "peer_port", s.net.Addr().String())
	}
	if err := s.barrier(ctx); err != nil {
		if herr := s.fsm.halt.get(); herr != nil {
			return fmt.Errorf("%w: %w", ErrOpen, herr)
		}
		return fmt.Errorf("%w: no leader with this node caught up: %w", ErrOpen, err)
	}
	if s.net != nil {
		_, leader := s.raft.LeaderWithID()
		s.cfg.Log.Info("caught up with the raft leader", "node", string(s.id), "leader", string(leader))
	}
	return nil
}

// Halted is closed when this node has stopped applying the raft log
// because an entry does not decode; HaltErr then says which (ErrHalted).
func (s *Store) Halted() <-chan struct{} { return s.fsm.halt.done }

// HaltErr is the error that halted this node, or nil.
func (s *Store) HaltErr() error { return s.fsm.halt.get() }

// HandOver passes the leadership of a rack cluster to the most up-to-date
// follower (raft's leadership transfer), waiting an election timeout at
// most. A node that does not lead, or leads alone, has nothing to hand
// over: nil.
func (s *Store) HandOver() error {
	if s.net == nil || s.raft.State() != raft.Leader {
		return nil
	}
	return s.raft.LeadershipTransfer().Error()
}

// handOver passes the leadership of a rack cluster to the most
// up-to-date follower before this node stops, so that a planned restart
// costs no election timeout. It gives up after raft's own timeout (an
// election timeout) when no follower can take over.
func (s *Store) handOver() {
	if s.net == nil || s.noHandOver || s.raft.State() != raft.Leader {
		return
	}
	if err := s.HandOver(); err != nil {
		s.cfg.Log.Warn("could not hand the leadership over before stopping", "err", err)
		return
	}
	s.cfg.Log.Info("handed the leadership over before stopping")
}

// Close stops the node and closes its files. Commands applied before are
// durable. A rack cluster's leader hands its leadership over first.
func (s *Store) Close() error {
	var errs []error
	select {
	case <-s.stop:
		return nil
	default:
		close(s.stop)
		s.endLife()
	}
	var shutdown raft.Future
	if s.raft != nil {
		s.handOver()
		shutdown = s.raft.Shutdown()
	}
	// The transport closes before raft's goroutines are waited for, so
	// that one blocked in an RPC to a stalled peer ends now rather than
	// at the RPC's timeout.
	if c, ok := s.trans.(interface{ Close() error }); ok {
		errs = append(errs, c.Close())
	}
	if s.net != nil {
		errs = append(errs, s.net.Close())
		s.pool.close()
	}
	if shutdown != nil {
		errs = append(errs, shutdown.Error())
		s.leader.close()
		s.changes.close()
	}
	s.wg.Wait()
	if s.logs != nil {
		errs = append(errs, s.logs.Close())
	}
	return errors.Join(errs...)
}
