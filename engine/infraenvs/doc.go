// Package infraenvs is the infra-env part of the domain, with no HTTP in
// it: what registering, changing and deleting an infra-env means (the
// checks of its settings, built into a validation-only discovery Ignition
// so that a bad override or proxy is refused before anything is written;
// its pull secret; the NMState configs made from its static network
// configs, which it selects by label) and the discovery.Input its
// discovery image is built from.
//
// The front doors (engine/api's REST handlers) decode their input into
// models params, call a Service and encode the result; refusals are
// engine/hosts' (hosts.ErrInvalid, ErrNotFound, ErrConflict).
package infraenvs
