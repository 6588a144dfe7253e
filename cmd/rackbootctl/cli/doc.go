// Package cli is rackbootctl's command line: it parses the verbs (get,
// create, delete, approve, patch, bind, unbind, install, cancel, reset,
// allow-add-workers, download, image-url, signing-keys, version), finds the server and the admin token, calls the REST API
// through package client and prints through package output.
//
// Run is the whole program short of process wiring: it takes the
// arguments, standard streams and environment and returns the exit code —
// 0 on success, 1 when the server or the network refused (the server's
// reason is shown), 2 for a usage error. The admin token is never
// printed, not even with -v.
package cli
