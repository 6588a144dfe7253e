// Package proc starts a server under test as a child process inside a
// network namespace, stops it (TERM, then KILL), and reads its memory use
// from /proc.
package proc
