package cluster

import (
	"log/slog"
	"net"
	"time"

	"github.com/hashicorp/raft"

	"github.com/rackboot/rackboot/cluster/rackca"
	"github.com/rackboot/rackboot/engine"
)

// Config says where and how a node runs. The zero value of every field
// but DataDir means its default.
type Config struct {
	// DataDir is the daemon's data directory; raft keeps its files in
	// DataDir/raft.
	DataDir string
	// Bind is the TCP address of a rack member's peer port (with
	// Identity). A one-voter node has no network transport at all.
	Bind string

	// Identity, when set, makes the node a member of a rack cluster: its
	// peers talk to it over mutual TLS on Bind (or Listener), raft and the
	// forwarded writes alike, and NodeID must be the id its certificate
	// names. Without Identity the node is a one-voter cluster of its own.
	Identity *rackca.Identity
	// NodeID is the raft server id; empty: a random id kept in the data
	// directory. A data directory created with one id refuses another.
	NodeID string
	// Listener, when set, is the TCP listener of the peer port (instead of
	// listening on Bind).
	Listener net.Listener
	// Advertise is the address peers dial (default: Bind, or the
	// listener's address).
	Advertise string
	// Bootstrap lists the founding members, this node included; used when
	// the data directory holds no state.
	Bootstrap []Peer
	// Join is a member's address to ask for admission when the data
	// directory holds no state. With neither Bootstrap nor Join (and no
	// state) the node waits until a member adds it.
	Join string

	// HeartbeatTimeout and ElectionTimeout default to 500 ms for a lone
	// node (a restarted one-voter node takes one to two of them to elect
	// itself) and to hashicorp/raft's defaults (1 s) in a rack cluster.
	HeartbeatTimeout time.Duration
	ElectionTimeout  time.Duration
	// ApplyTimeout bounds Apply and Barrier when their context has no
	// deadline, retries while an election runs included (default 10 s).
	ApplyTimeout time.Duration
	// SnapshotThreshold is how many log entries trigger a snapshot
	// (default 8192).
	SnapshotThreshold uint64
	// Log receives raft's messages and the store's; nil discards.
	Log *slog.Logger
	// Now stamps commands (default time.Now).
	Now func() time.Time
	// Sealer seals every secret value before its command is appended, so
	// the log and the snapshots hold ciphertext only, and opens them for
	// readers (engine.Machine.SetSealer). Every member of a rack needs the
	// same key. Nil stores secrets as they come.
	Sealer *engine.Sealer
}

func (c Config) withDefaults() Config {
	if c.HeartbeatTimeout == 0 {
		c.HeartbeatTimeout = 500 * time.Millisecond
		if c.Identity != nil {
			c.HeartbeatTimeout = raft.DefaultConfig().HeartbeatTimeout
		}
	}
	if c.ElectionTimeout == 0 {
		c.ElectionTimeout = c.HeartbeatTimeout
	}
	if c.ApplyTimeout == 0 {
		c.ApplyTimeout = 10 * time.Second
	}
	if c.SnapshotThreshold == 0 {
		c.SnapshotThreshold = 8192
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// raftConfig is the raft configuration of c for node id.
func (c Config) raftConfig(id raft.ServerID) *raft.Config {
	rc := raft.DefaultConfig()
	rc.LocalID = id
	rc.HeartbeatTimeout = c.HeartbeatTimeout
	rc.ElectionTimeout = c.ElectionTimeout
	rc.LeaderLeaseTimeout = min(c.HeartbeatTimeout/2, raft.DefaultConfig().LeaderLeaseTimeout)
	rc.CommitTimeout = 5 * time.Millisecond
	rc.SnapshotThreshold = c.SnapshotThreshold
	rc.BatchApplyCh = true
	rc.Logger = newHCLog(c.Log)
	return rc
}

// Peer is a member of the cluster: its node id and raft address.
type Peer struct {
	ID   string
	Addr string
}

func (p Peer) String() string { return p.ID + "@" + p.Addr }
