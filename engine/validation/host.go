package validation

import (
	"time"

	"github.com/rackboot/rackboot/engine/models"
)

// HostFacts is everything the host validations look at. The zero value of
// an optional field means "not reported yet".
type HostFacts struct {
	ID string
	// Role is the role the user asked for ("" means auto-assign);
	// SuggestedRole the one the engine would give an auto-assign host.
	Role          models.HostRole
	SuggestedRole models.HostRole
	// RequestedHostname overrides the inventory's hostname when set.
	RequestedHostname string
	// Status is the host's current status (used for the NTP validation of
	// unbound hosts and by HostStatus).
	Status string
	// Inventory is the last inventory the agent sent; nil before the first.
	Inventory *models.Inventory
	// CheckedInAt is the last time the agent was heard from (zero: never).
	CheckedInAt time.Time
	// Now is the evaluation time, chosen by the caller (the raft leader).
	Now time.Time
	// MediaDisconnected is set when the agent reported that the discovery
	// media could not be read.
	MediaDisconnected bool
	// HostTime is the host's clock as it reported it (unix seconds; 0: unknown).
	HostTime int64
	// NTP is the output of the last ntp-synchronizer step; nil: none yet.
	NTP *models.NtpSynchronizationResponse
	// NTPSourcesConfigured says the infra-env lists extra NTP sources.
	NTPSourcesConfigured bool
	// Connectivity is the output of the last connectivity-check step.
	Connectivity *models.ConnectivityReport
	// DomainResolutions is the output of the last domain-resolution step.
	DomainResolutions *models.DomainResolutionResponse
	// DiskSpeed is the installation disk's measured speed; nil: never
	// measured.
	DiskSpeed *DiskSpeed
	// Cluster is the cluster the host is bound to; nil for an unbound host
	// of a late-binding infra-env.
	Cluster *HostCluster
}

// HostCluster is what a host's validations need from its cluster.
type HostCluster struct {
	Name       string
	BaseDomain string
	// MachineNetworks, ClusterNetworks and ServiceNetworks are CIDRs.
	MachineNetworks []string
	ClusterNetworks []string
	ServiceNetworks []string
	SingleNode      bool
	// Day2: the cluster is installed and takes day-2 hosts, which need no
	// connectivity to the installed ones.
	Day2 bool
	// UserManagedNetworking: the user runs the load balancers and DNS.
	UserManagedNetworking bool
	// HostCount is the number of hosts in the cluster, this one included.
	HostCount int
	// OtherHostnames are the effective hostnames of the cluster's other
	// hosts that have sent an inventory.
	OtherHostnames []string
	// MajorityGroups maps a machine network CIDR (or "IPv4"/"IPv6" for
	// user-managed networking) to the ids of the hosts that reach each
	// other there (see MajorityGroups); nil: not computed yet.
	MajorityGroups map[string][]string
	// IPCollisions maps an address to the MACs that claim it (see
	// IPCollisions); nil: not evaluated yet.
	IPCollisions map[string][]string
	// Peers are the cluster's other hosts by id, for the latency and
	// packet-loss validations.
	Peers map[string]Peer
}

// EffectiveRole is the role the host is validated for: the requested one,
// or the suggested one for an auto-assign host.
func (h HostFacts) EffectiveRole() models.HostRole {
	if h.Role != "" && h.Role != models.HostRoleAutoAssign {
		return h.Role
	}
	if h.SuggestedRole != "" {
		return h.SuggestedRole
	}
	return models.HostRoleAutoAssign
}

// Hostname is the requested hostname, else the inventory's.
func (h HostFacts) Hostname() string {
	if h.RequestedHostname != "" {
		return h.RequestedHostname
	}
	if h.Inventory != nil {
		return h.Inventory.Hostname
	}
	return ""
}

func (h HostFacts) singleNode() bool { return h.Cluster != nil && h.Cluster.SingleNode }

func (h HostFacts) umn() bool { return h.Cluster != nil && h.Cluster.UserManagedNetworking }

// roleRequirements are the minimums of the host's role; an unbound host is
// held to the worker minimums, as upstream's infra-env requirements.
func (h HostFacts) roleRequirements(t Thresholds) Requirements {
	if h.Cluster == nil {
		return t.Worker
	}
	return t.ForRole(h.EffectiveRole(), h.singleNode())
}

// hostCheck is one host validation.
type hostCheck func(h HostFacts, t Thresholds) Result

// hostChecks are the host validations in upstream's evaluation order,
// which is the order of validations_info.
func hostChecks() []hostCheck {
	return []hostCheck{
		checkConnected, checkMediaConnected, checkHasInventory,
		checkNotPartiallyTruncated, checkNotFullyTruncated,
		checkMinCPU, checkMinMemory, checkMinDisks, checkHostMachineCIDR,
		checkCPUForRole, checkMemoryForRole, checkHostnameUnique, checkBelongsToMachineCIDR,
		checkHostnameValid, checkIgnitionDownloadable, checkMajorityGroup, checkMTU,
		checkPlatformNetwork, checkNTPSynced, checkTimeSynced, checkContainerImages,
		checkDiskSpeed, checkLatency, checkPacketLoss, checkDefaultRoute,
		checkAPIDomain, checkAPIIntDomain, checkAppsDomain, checkPlatform, checkDNSWildcard,
		checkDiskEncryption, checkNonOverlappingSubnets, checkIPCollisions,
	}
}

// ValidateHost runs every host validation.
func ValidateHost(h HostFacts, t Thresholds) Results {
	out := make(Results, 0, len(hostChecks()))
	for _, c := range hostChecks() {
		out = append(out, c(h, t))
	}
	return out
}
