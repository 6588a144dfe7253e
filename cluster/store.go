package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"
	"go.etcd.io/bbolt"

	"github.com/rackboot/rackboot/engine"
)

// ErrOpen is wrapped by errors of Open.
var ErrOpen = errors.New("cluster: open")

// Store is a raft node holding the engine's model; it implements
// engine.Store. Create it with Open and Close it when done.
type Store struct {
	cfg    Config
	id     raft.ServerID
	raft   *raft.Raft
	fsm    *fsm
	logs   *raftboltdb.BoltStore
	trans  raft.Transport
	leader *leaderFeed
}

var _ engine.Store = (*Store)(nil)

// Open opens (or creates) the node's raft state under cfg.DataDir/raft,
// bootstraps a one-voter cluster when the state is empty, and returns once
// the node leads and has applied its whole log, or ctx ends.
func Open(ctx context.Context, cfg Config) (_ *Store, err error) {
	cfg = cfg.withDefaults()
	dir := filepath.Join(cfg.DataDir, "raft")
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOpen, err)
	}
	id, err := nodeID(dir)
	if err != nil {
		return nil, err
	}
	s := &Store{cfg: cfg, id: id, fsm: &fsm{mach: engine.NewMachine()}}
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

func (s *Store) openRaft(dir string) error {
	rc := s.cfg.raftConfig(s.id)
	logs, err := raftboltdb.New(raftboltdb.Options{
		Path:        filepath.Join(dir, "raft.db"),
		BoltOptions: &bbolt.Options{Timeout: time.Second},
	})
	if err != nil {
		return fmt.Errorf("%w: log store (is another rackbootd using %s?): %w", ErrOpen, dir, err)
	}
	s.logs = logs
	snaps, err := raft.NewFileSnapshotStoreWithLogger(dir, 2, rc.Logger)
	if err != nil {
		return fmt.Errorf("%w: snapshot store: %w", ErrOpen, err)
	}
	if s.trans, err = s.transport(rc); err != nil {
		return err
	}
	existing, err := raft.HasExistingState(logs, logs, snaps)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrOpen, err)
	}
	if !existing {
		boot := raft.Configuration{Servers: []raft.Server{{ID: s.id, Address: s.trans.LocalAddr()}}}
		if err := raft.BootstrapCluster(rc, logs, logs, snaps, s.trans, boot); err != nil {
			return fmt.Errorf("%w: bootstrap: %w", ErrOpen, err)
		}
		s.cfg.Log.Info("bootstrapped a one-voter raft cluster", "node", string(s.id))
	}
	r, err := raft.NewRaft(rc, s.fsm, logs, logs, snaps, s.trans)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrOpen, err)
	}
	s.raft = r
	s.leader = newLeaderFeed(r)
	return nil
}

func (s *Store) transport(rc *raft.Config) (raft.Transport, error) {
	if s.cfg.StreamLayer != nil {
		return raft.NewNetworkTransportWithConfig(&raft.NetworkTransportConfig{
			Stream: s.cfg.StreamLayer, MaxPool: 3, Timeout: 10 * time.Second, Logger: rc.Logger,
		}), nil
	}
	t, err := raft.NewTCPTransportWithLogger(s.cfg.Bind, nil, 3, 10*time.Second, rc.Logger)
	if err != nil {
		return nil, fmt.Errorf("%w: transport on %s: %w", ErrOpen, s.cfg.Bind, err)
	}
	return t, nil
}

// waitReady waits for leadership, then for every log entry to be applied.
func (s *Store) waitReady(ctx context.Context) error {
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for leader := range s.leader.subscribe(lctx) {
		if leader {
			return s.Barrier(ctx)
		}
	}
	return fmt.Errorf("%w: no leadership: %w", ErrOpen, context.Cause(ctx))
}

// Close stops the node and closes its files. Commands applied before are
// durable.
func (s *Store) Close() error {
	var errs []error
	if s.raft != nil {
		errs = append(errs, s.raft.Shutdown().Error())
		s.leader.close()
	}
	if c, ok := s.trans.(interface{ Close() error }); ok {
		errs = append(errs, c.Close())
	}
	if s.logs != nil {
		errs = append(errs, s.logs.Close())
	}
	return errors.Join(errs...)
}
