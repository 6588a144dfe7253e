// Package tftpbench fetches one file over TFTP from many concurrent workers
// and reports throughput and transfers per second. It carries its own small
// RFC 1350/2347/2348 read client (RRQ with blksize and tsize, lock-step
// ACKs, retransmission on timeout) so the load generator costs little CPU.
package tftpbench
