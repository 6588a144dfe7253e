// Package models holds the wire types of the assisted-service REST API v2
// that rackboot speaks: the documents an agent and the service exchange
// (inventory, next-step instructions, step replies, host registration) and
// the payloads of the steps rackboot runs.
//
// The JSON field names, omitempty choices and enum strings match upstream
// (openshift/assisted-service models), so a real assisted-installer-agent can
// talk to rackboot and tools written for upstream can read rackboot's answers.
// Fields are declared in upstream's order (alphabetical by Go name), which
// makes encoding/json emit keys in the same order upstream does.
//
// These are wire types only: plain structs with json tags, no validation and
// no behaviour. The engine keeps its own domain model and converts at the
// API boundary.
package models
