// Package leasefile is a durable dhcp.Leases kept in one append-only file
// under the data directory.
//
// Every change is a checksummed record appended to the log. Changes are
// committed in groups: concurrent Commit calls wait for one shared write and
// fdatasync, so the server can put each lease on stable storage before its
// ACK without paying one fsync per packet. Lookups are served from memory.
// On open the log is replayed; a record cut short by a crash, or one whose
// checksum fails, ends the replay and is cut off. When the log holds far more
// records than live leases it is rewritten (compacted) and atomically
// renamed over the old one.
package leasefile
