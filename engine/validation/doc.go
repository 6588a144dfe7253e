// Package validation computes the Assisted Installer's host and cluster
// validations as pure functions: facts in, results out.
//
// The engine gathers what it knows about a host (its inventory, role,
// hostname, step results such as connectivity, NTP and DNS resolution, the
// time it last checked in, the cluster it is bound to) into a HostFacts and
// calls ValidateHost; likewise ClusterFacts and ValidateCluster. Each result
// carries upstream's validation id (openshift/assisted-service), a status
// (success, failure, pending, error, disabled) and a message worded like
// upstream's, so rackbootctl and tools written for the v2 API show what users
// of the Assisted Installer expect. ValidationsInfo groups the results the way
// upstream's validations_info JSON does.
//
// HostStatus and ClusterStatus decide the next state (discovering,
// insufficient, known, pending-for-input, disconnected, their -unbound
// variants for late binding; cluster insufficient, ready, pending-for-input)
// from the previous state and the results, with upstream's status_info texts.
//
// AgentConditions gives the CR view of a host (Connected, RequirementsMet,
// Validated, Bound) with upstream's reasons and messages.
//
// Hardware minimums come from Thresholds. DefaultThresholds holds upstream's
// numbers; an image set may override them (the testbed's small VMs pass only
// through such an explicit profile). Disk eligibility for installation
// (DiskEligibility, EligibleDisks) follows upstream's rules.
//
// Nothing here reads the clock, the network or the store: the caller passes
// the current time in the facts, which keeps the functions deterministic and
// usable inside raft Apply.
package validation
