// Package output renders what rackbootctl shows: kubectl-like tables of
// clusters, infra-envs, hosts and events (table and wide), and the same
// objects as JSON or YAML with upstream's field names.
//
// A Table is plain data (a header and rows of cells); a Printer writes
// tables with columns padded to the widest cell seen so far, so the rows
// a watch prints later stay aligned with the header printed first. Tables
// never carry secrets: the wire types they are built from have no field
// for a pull secret or a token.
package output
