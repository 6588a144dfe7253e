// Package rackca is the rack's certificate authority: it creates the CA
// (ECDSA P-256) that rackbootctl cluster init writes, issues the node
// certificates that name each appliance's raft node id, and loads and
// checks a node's identity (CA, certificate, key) for the mutual TLS
// between appliances.
//
// A node certificate names its node id twice: as the SAN URI
// rackboot://node/<id>, which is what peers check, and as the subject's
// common name, for people reading it. It is valid for both TLS server and
// client authentication, since each appliance dials and is dialed.
package rackca
