// Package cluster replicates the engine's model with hashicorp/raft and
// implements engine.Store on it.
//
// The raft log and stable store are one raft-boltdb/v2 file and the
// snapshots a file snapshot store, both under <data_dir>/raft. The FSM is an
// engine.Machine: log entries are encoded engine commands, a snapshot is a
// clone of the model taken in the FSM goroutine and written out by Persist
// without any lock, and Restore swaps a decoded model in.
//
// Without Config.Identity a node whose store is empty bootstraps a
// configuration with itself as the only voter, so a single appliance is a
// one-voter cluster that elects itself: there is no other code path. Its
// raft transport is in memory: nothing outside the process can send it a
// raft RPC. (A data directory written by an older rackboot, whose
// configuration names a TCP address, opens the same way: a lone voter
// never dials itself.)
//
// A log entry that does not decode (a bug, or an entry written by a newer
// rackboot) halts the FSM: it and every later entry stay unapplied, no
// snapshot is taken, and Halted reports ErrHalted, which rackbootd turns
// into a stop (docs/operations.md has the way out).
//
// With Config.Identity the node is one appliance of a rack cluster. Its
// peer port (package tlsnet) is mutual TLS 1.3 against the rack CA
// (package rackca): raft's traffic and the cluster's own RPCs share it,
// told apart by ALPN, and only members may open raft connections. A new
// node bootstraps with Config.Bootstrap's members, or asks Config.Join's
// member to add it. Writes reaching a follower are forwarded to the
// leader in one place (forward.go) and retried while an election runs; a
// forwarded entry carries a tag in its log extensions so that the
// follower's FSM hands the caller the entry's own result when it applies
// it, which makes a forwarded Apply return exactly what a local one would,
// after the write is visible here. Barrier, on any node, asks the leader
// for a read index (its last state-changing entry, noted before a
// heartbeat round to a majority confirms its leadership) and waits to
// apply up to it. AddMember, RemoveMember and Status manage and show the
// membership; a removal is recorded in the replicated state, so that a
// removed node cannot ask its way back in. A leader that closes hands its
// leadership over first.
//
// Controllers that act on the world write through engine.Fence(store):
// Store implements engine.Termer, and the FSM passes each entry's term to
// the engine, which refuses a fenced command from another term.
package cluster
