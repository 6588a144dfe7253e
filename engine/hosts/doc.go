// Package hosts is the host part of the domain, with no HTTP in it: how a
// host and its cluster are evaluated (engine/validation over the model's
// view of them, with the thresholds of their image set), the status moves
// and events that follow, the agents' periodic steps (which are due, and
// keeping their outputs), and the host monitor that re-evaluates hosts on
// the leader and disconnects silent ones.
//
// The front doors (engine/api's REST handlers, engine/acm's controllers)
// decode their input, call a Service and encode its results; cmd/rackbootd
// runs Service.Monitor on the leader. A Service writes only through
// engine.Store commands; what it keeps itself are caches that save work
// (decoded inventories and connectivity reports, each cluster's majority
// groups) and when it last handed each host each periodic step, so a new
// leader hands every step out once more.
//
// Steps: every host in a status validations move (MonitoredStatuses) gets,
// as upstream's do, ntp-synchronizer (its infra-env's NTP sources;
// rackboot-agent adds the appliance's clock), and a host bound to a
// cluster connectivity-check (the cluster's other hosts with their NICs'
// MACs and addresses) and domain-resolution (validation.DomainsToResolve).
// A step is handed out again only when its arguments change or
// Options.StepInterval passed; so is the inventory (InventoryDue). Their
// latest outputs are kept on the host (StoreStepResult) and feed the
// validations, together with the cluster's majority groups and IP
// collisions.
//
// Host validations are re-evaluated (Refresh) whenever an inventory, a
// step output, the host's clock verdict, a user setting or a binding
// changes (a connectivity report that moves the majority groups
// re-evaluates the whole cluster); Monitor re-evaluates them periodically.
package hosts
