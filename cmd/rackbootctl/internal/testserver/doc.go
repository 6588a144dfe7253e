// Package testserver runs the real REST API handler (engine/api) over the
// in-memory engine store (engine/enginetest) on a loopback httptest
// server, for the tests of rackbootctl and its client. It also plays the
// agent's part: it reads the agent configuration out of a discovery
// Ignition and registers hosts through the agent's own protocol client.
package testserver
