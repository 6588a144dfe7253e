package cluster

import (
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

// PeersFile is the recovery file a node reads at start, as Consul does:
// DataDir/raft/peers.json, hashicorp/raft's JSON list of
// {"id","address","non_voter"}. When it exists the node replaces its
// cluster configuration with that list (raft.RecoverCluster) before it
// starts, then removes the file.
const PeersFile = "peers.json"

// Recover rewrites, offline, the cluster configuration kept in
// cfg.DataDir so that this node is the only voter, keeping its state: the
// way out for a rack that lost its majority for good (two of three
// appliances gone). The node's snapshot and log are applied, and every
// entry it holds is kept, even one the lost majority never committed.
// Opened afterwards the node elects itself; new members then join it.
func Recover(cfg Config) error {
	cfg = cfg.withDefaults()
	if err := cfg.checkIdentity(); err != nil {
		return err
	}
	self, err := cfg.selfAddress()
	if err != nil {
		return err
	}
	dir := filepath.Join(cfg.DataDir, "raft")
	if _, err := os.Stat(filepath.Join(dir, "raft.db")); err != nil {
		return fmt.Errorf("%w: no raft state in %s to recover: %w", ErrRestore, dir, err)
	}
	id, err := nodeID(dir, cfg.NodeID)
	if err != nil {
		return err
	}
	conf := raft.Configuration{Servers: []raft.Server{{ID: id, Address: self, Suffrage: raft.Voter}}}
	logs, err := openLogStore(dir)
	if err != nil {
		return fmt.Errorf("%w: log store (is rackbootd still running?): %w", ErrRestore, err)
	}
	defer logs.Close()
	rc := cfg.raftConfig(id)
	snaps, err := raft.NewFileSnapshotStoreWithLogger(dir, 2, rc.Logger)
	if err != nil {
		return fmt.Errorf("%w: snapshot store: %w", ErrRestore, err)
	}
	return recoverWith(rc, logs, snaps, conf)
}

// openLogStore opens dir's raft.db for an offline command, as Open does,
// giving up after a second when a running node holds it.
func openLogStore(dir string) (*raftboltdb.BoltStore, error) {
	return raftboltdb.New(raftboltdb.Options{
		Path:        filepath.Join(dir, "raft.db"),
		BoltOptions: &bbolt.Options{Timeout: time.Second, NoFreelistSync: true, FreelistType: bbolt.FreelistMapType},
	})
}

// recoverWith replaces the configuration of the state in logs and snaps
// by conf, replaying the state through a scratch state machine.
func recoverWith(rc *raft.Config, logs *raftboltdb.BoltStore, snaps raft.SnapshotStore, conf raft.Configuration) error {
	_, trans := raft.NewInmemTransport(conf.Servers[0].Address)
	defer trans.Close()
	f := newFSM(engine.NewMachine())
	if err := raft.RecoverCluster(rc, f, logs, logs, snaps, trans, conf); err != nil {
		return fmt.Errorf("%w: %w", ErrRestore, err)
	}
	return nil
}

// recoverFromPeersFile applies dir's peers.json, if any, and removes it.
func (s *Store) recoverFromPeersFile(dir string, rc *raft.Config, snaps raft.SnapshotStore) error {
	path := filepath.Join(dir, PeersFile)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	conf, err := raft.ReadConfigJSON(path)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrOpen, path, err)
	}
	if err := recoverWith(rc, s.logs, snaps, conf); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrOpen, path, err)
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("%w: recovered, but %w", ErrOpen, err)
	}
	s.cfg.Log.Warn("recovered the cluster configuration from peers.json (and removed it)", "node", string(s.id), "voters", len(conf.Servers))
	return nil
}
