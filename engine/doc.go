// Package engine is rackboot's domain: the deterministic in-memory model of
// everything the appliance keeps (infra-envs, clusters, hosts, NMState
// configs, image sets, secrets, DHCP leases, events) and the typed commands
// that change it.
//
// The model changes only through commands. A command is encoded as one type
// byte, one body-version byte and a JSON body (see Encode); type numbers are
// never reused. Commands are dispatched by a table (commandTable): adding one
// is a new type with a Type method and an apply method, plus one table entry.
// The command carries the time its leader stamped on it; apply never reads
// the clock, so every replica that applies the same log reaches the same
// model. A body that cannot be decoded is a bug and panics in Machine.Apply;
// a domain failure (ErrNotFound, ErrConflict, ErrInvalid) is the command's
// result and changes nothing.
//
// Machine holds the model and applies encoded commands; package cluster runs
// it as a hashicorp/raft FSM and implements Store, the interface the rest of
// the engine and the API use (apply a command, read consistently, wait for a
// barrier, follow a change feed, know about leadership). Objects stored in
// the model are immutable: an update stores a changed copy, so a snapshot is
// a cheap copy of the maps (Model.Clone) that is written out (Model.WriteTo)
// without holding the lock.
//
// Leases implements dhcp.Leases on a Store, merging concurrent commits into
// one command (group commit) so that DHCP throughput holds on a replicated
// log.
package engine
