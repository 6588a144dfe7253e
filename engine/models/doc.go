// Package models holds the wire types of the assisted-service REST API v2
// that rackboot speaks: the documents an agent and the service exchange
// (inventory, next-step instructions, step replies, host registration),
// the payloads of the steps rackboot runs, and the documents of the user
// API (clusters, infra-envs, hosts, events, BareMetalHosts and their
// create/update parameters). engine/api serves them, rackboot-agent and
// rackbootctl's client send and read them: one definition for all three.
//
// The JSON field names, omitempty choices and enum strings match upstream
// (openshift/assisted-service models), so a real assisted-installer-agent can
// talk to rackboot and tools written for upstream can read rackboot's answers.
// Fields are declared in upstream's order (alphabetical by Go name), which
// makes encoding/json emit keys in the same order upstream does.
//
// These are wire types only: plain structs with json tags, no validation and
// no behaviour, except String (and GoString) methods on the types that carry
// a pull secret or password, so that printing one never shows the secret.
// The engine keeps its own domain model and converts at the API boundary.
package models
