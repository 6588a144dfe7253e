// Package tlsnet is the one TLS port an appliance opens to its peers. Every
// connection is TLS 1.3 with a certificate on both sides, verified against
// the rack CA (package rackca); the peer's node id is the one its
// certificate names. ALPN says what a connection carries: raft's RPCs
// (handed to hashicorp/raft through the StreamLayer that Raft returns) or
// the cluster's own request/response RPCs (forwarded writes, read
// indexes, joins), handed to the function given to Serve.
//
// Multiplexing by ALPN rather than by a first byte (as consul does) means
// the choice is made inside the handshake, so the admission check (is this
// node a member? may it open this kind of connection?) runs before the
// handshake completes and a refused peer gets a TLS alert rather than a
// connection that just closes.
package tlsnet
