package cluster

import (
	"log/slog"
	"time"

	"github.com/hashicorp/raft"
)

// Config says where and how a node runs. The zero value of every field
// but DataDir means its default.
type Config struct {
	// DataDir is the daemon's data directory; raft keeps its files in
	// DataDir/raft.
	DataDir string
	// Bind is the raft transport's TCP address (default 127.0.0.1:0). It
	// is ignored when StreamLayer is set.
	Bind string
	// StreamLayer, when set, carries raft traffic instead of plain TCP.
	StreamLayer raft.StreamLayer
	// HeartbeatTimeout and ElectionTimeout default to 500 ms: a restarted
	// one-voter node takes between one and two of them to elect itself.
	HeartbeatTimeout time.Duration
	ElectionTimeout  time.Duration
	// ApplyTimeout bounds Apply when its context has no deadline (default
	// 10 s).
	ApplyTimeout time.Duration
	// SnapshotThreshold is how many log entries trigger a snapshot
	// (default 8192).
	SnapshotThreshold uint64
	// Log receives raft's messages and the store's; nil discards.
	Log *slog.Logger
	// Now stamps commands (default time.Now).
	Now func() time.Time
}

func (c Config) withDefaults() Config {
	if c.Bind == "" {
		c.Bind = "127.0.0.1:0"
	}
	if c.HeartbeatTimeout == 0 {
		c.HeartbeatTimeout = 500 * time.Millisecond
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
	rc.LeaderLeaseTimeout = c.HeartbeatTimeout / 2
	rc.CommitTimeout = 5 * time.Millisecond
	rc.SnapshotThreshold = c.SnapshotThreshold
	rc.BatchApplyCh = true
	rc.Logger = newHCLog(c.Log)
	return rc
}
