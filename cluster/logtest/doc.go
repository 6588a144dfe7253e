// Package logtest writes into a stopped node's raft log from a test, as a
// peer that reached the log (or a bug) could have: for the tests of what a
// node does with an entry it cannot apply.
package logtest
