// Package clusters is the cluster part of the domain, with no HTTP in it:
// what registering, changing and deregistering a cluster means (the checks
// of its settings, its pull secret, upstream's default networks, the image
// set it installs), custom manifests, starting an installation (readiness
// and approvals, failing validations, installation disks, roles and the
// bootstrap host) and the later moves: cancel, reset, day-2 workers,
// completion, a host booting the discovery image mid-install.
//
// The front doors (engine/api's REST handlers, engine/acm's controllers
// through Domain) decode their input into models params, call a Service or
// Domain and encode the result. Bad input is refused before a command is
// appended (hosts.ErrInvalid, ErrNotFound, ErrConflict; a cluster that is
// not ready to install is a *NotReadyError with its failing validations).
// Hosts are evaluated by engine/hosts.
package clusters
