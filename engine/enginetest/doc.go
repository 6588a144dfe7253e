// Package enginetest has an in-memory engine.Store for tests of the code
// built on the engine (API handlers, controllers, DHCP leases). Every
// command goes through engine.Encode and the decoding table like a
// replicated log entry would, so a command that does not round-trip fails
// here too; there is no disk and no raft.
package enginetest
