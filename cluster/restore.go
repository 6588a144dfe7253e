package cluster

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"github.com/hashicorp/raft"

	"github.com/rackboot/rackboot/engine"
)

// ErrRestore is wrapped by errors of Restore and Recover.
var ErrRestore = errors.New("cluster: restore")

// Restore writes m as the state of a new node, offline, into cfg.DataDir,
// which must hold no raft state: a raft snapshot of m whose configuration
// is this node alone, as etcdutl snapshot restore does. Opened
// afterwards, the node is a one-voter cluster holding m (a rack member
// among them: others then join it). Nothing is written when the directory
// already holds state.
func Restore(cfg Config, m *engine.Model) error {
	cfg = cfg.withDefaults()
	if err := cfg.checkIdentity(); err != nil {
		return err
	}
	dir := filepath.Join(cfg.DataDir, "raft")
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("%w: %s already holds raft state: restore only into an empty data_dir", ErrRestore, dir)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%w: %w", ErrRestore, err)
	}
	self, err := cfg.selfAddress()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return fmt.Errorf("%w: %w", ErrRestore, err)
	}
	id, err := nodeID(dir, cfg.NodeID)
	if err != nil {
		return err
	}
	conf := raft.Configuration{Servers: []raft.Server{{ID: id, Address: self, Suffrage: raft.Voter}}}
	if err := writeRestored(dir, cfg, conf, m); err != nil {
		return fmt.Errorf("%w: %w (remove %s before trying again)", ErrRestore, err, dir)
	}
	return nil
}

// writeRestored writes the snapshot of m, with conf, at m's index in term
// 1, and term 1 as the node's current term.
func writeRestored(dir string, cfg Config, conf raft.Configuration, m *engine.Model) error {
	logs, err := openLogStore(dir)
	if err != nil {
		return err
	}
	defer logs.Close()
	if err := logs.SetUint64([]byte("CurrentTerm"), 1); err != nil {
		return err
	}
	snaps, err := raft.NewFileSnapshotStoreWithLogger(dir, 2, newHCLog(cfg.Log))
	if err != nil {
		return err
	}
	_, trans := raft.NewInmemTransport(conf.Servers[0].Address)
	defer trans.Close()
	sink, err := snaps.Create(raft.SnapshotVersionMax, max(m.Index(), 1), 1, conf, 1, trans)
	if err != nil {
		return err
	}
	if _, err := m.WriteTo(sink); err != nil {
		sink.Cancel()
		return err
	}
	return sink.Close()
}

// selfAddress is the raft address this node has in its configuration:
// the address peers dial on a rack member, the in-memory transport's on
// a lone node.
func (c Config) selfAddress() (raft.ServerAddress, error) {
	if c.Identity == nil {
		return localAddr, nil
	}
	bind, err := net.ResolveTCPAddr("tcp", c.Bind)
	if err != nil {
		return "", fmt.Errorf("%w: bind %q: %w", ErrRestore, c.Bind, err)
	}
	a, err := advertise(c.Advertise, bind)
	if err != nil {
		return "", err
	}
	return raft.ServerAddress(a.String()), nil
}
