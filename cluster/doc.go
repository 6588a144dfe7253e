// Package cluster replicates the engine's model with hashicorp/raft and
// implements engine.Store on it.
//
// The raft log and stable store are one raft-boltdb/v2 file and the
// snapshots a file snapshot store, both under <data_dir>/raft. The FSM is an
// engine.Machine: log entries are encoded engine commands, a snapshot is a
// clone of the model taken in the FSM goroutine and written out by Persist
// without any lock, and Restore swaps a decoded model in.
//
// A node whose store is empty bootstraps a configuration with itself as the
// only voter, so a single appliance is a one-voter cluster that elects
// itself: there is no other code path. Peers talk over a TCP transport, or
// over the raft.StreamLayer given in Config (the seam for mTLS).
package cluster
