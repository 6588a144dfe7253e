package validation

import (
	"slices"

	"github.com/rackboot/rackboot/engine/models"
)

// ClusterFacts is everything the cluster validations look at.
type ClusterFacts struct {
	Name          string
	BaseDomain    string
	PullSecretSet bool
	// ControlPlaneCount is the number of control-plane nodes wanted
	// (1: single-node; 0 means upstream's default, 3).
	ControlPlaneCount     int
	UserManagedNetworking bool
	// NetworkType is OVNKubernetes, OpenShiftSDN, ... ("" means
	// OVNKubernetes, upstream's default).
	NetworkType     string
	MachineNetworks []string
	ClusterNetworks []ClusterNetwork
	ServiceNetworks []string
	APIVips         []string
	IngressVips     []string
	Hosts           []ClusterHost
}

// ClusterNetwork is one pod network: a CIDR and the prefix of each node's
// slice of it.
type ClusterNetwork struct {
	CIDR       string
	HostPrefix int
}

// ClusterHost is what the cluster validations need from one host.
type ClusterHost struct {
	ID     string
	Status string
	// Role is the host's effective role (requested, or suggested for
	// auto-assign; "" counts as auto-assign).
	Role      models.HostRole
	Inventory *models.Inventory
	// HostTime is the host's clock as last reported (unix seconds).
	HostTime int64
}

// Network types upstream accepts.
const (
	NetworkTypeOVNKubernetes = "OVNKubernetes"
	NetworkTypeOpenShiftSDN  = "OpenShiftSDN"
)

func (c ClusterFacts) controlPlaneCount() int {
	if c.ControlPlaneCount <= 0 {
		return 3
	}
	return c.ControlPlaneCount
}

func (c ClusterFacts) singleNode() bool { return c.controlPlaneCount() == 1 }

func (c ClusterFacts) networkType() string {
	if c.NetworkType == "" {
		return NetworkTypeOVNKubernetes
	}
	return c.NetworkType
}

func (c ClusterFacts) hasInventories() bool {
	return slices.ContainsFunc(c.Hosts, func(h ClusterHost) bool { return h.Inventory != nil })
}

// machineNetworkRequired: user-managed networking needs no machine network,
// except on a single node.
func (c ClusterFacts) machineNetworkRequired() bool {
	return !c.UserManagedNetworking || c.singleNode()
}

type clusterCheck func(c ClusterFacts, t Thresholds) Result

func clusterChecks() []clusterCheck {
	return []clusterCheck{
		checkClusterMachineCIDR, checkMachineCIDRCalc, checkAPIVipsDefined, checkAPIVipsValid,
		checkNetworkType, checkIngressVipsDefined, checkIngressVipsValid, checkAllHostsReady,
		checkMastersCount, checkDNSDomain, checkPullSecret, checkClusterCIDR, checkServiceCIDR,
		checkCIDRsOverlapping, checkNetworkPrefix, checkClusterNTP, checkSameFamilies,
	}
}

// ValidateCluster runs every cluster validation, in upstream's order.
func ValidateCluster(c ClusterFacts, t Thresholds) Results {
	out := make(Results, 0, 17)
	for _, check := range clusterChecks() {
		out = append(out, check(c, t))
	}
	return out
}

func checkDNSDomain(c ClusterFacts, _ Thresholds) Result {
	if c.BaseDomain != "" {
		return result(ClusterDNSDomainDefined, StatusSuccess, "The base domain is defined.")
	}
	return result(ClusterDNSDomainDefined, StatusFailure, "The base domain is undefined and must be provided.")
}

func checkPullSecret(c ClusterFacts, _ Thresholds) Result {
	if c.PullSecretSet {
		return result(ClusterPullSecretSet, StatusSuccess, "The pull secret is set.")
	}
	return result(ClusterPullSecretSet, StatusFailure, "The pull secret is not set.")
}

func readyToInstall(status string) bool {
	return slices.Contains([]string{models.HostStatusKnown, models.HostStatusPreparingForInstallation,
		models.HostStatusPreparingSuccessful}, status)
}

func checkAllHostsReady(c ClusterFacts, _ Thresholds) Result {
	for _, h := range c.Hosts {
		if !readyToInstall(h.Status) {
			return result(ClusterAllHostsReady, StatusFailure, "The cluster has hosts that are not ready to install.")
		}
	}
	return result(ClusterAllHostsReady, StatusSuccess, "All hosts in the cluster are ready to install.")
}

// masterCandidate: an auto-assign host that meets the control-plane
// minimums can be counted as a master.
func masterCandidate(h ClusterHost, c ClusterFacts, t Thresholds) bool {
	if h.Inventory == nil {
		return false
	}
	req := t.ForRole(models.HostRoleMaster, c.singleNode())
	mem, _ := memory(h.Inventory)
	_, eligible := EligibleDisks(h.Inventory, req.DiskGB)
	return cpuCount(h.Inventory) >= req.CPUCores && mem >= (req.MemoryMiB-t.MemoryToleranceMiB)*mib && len(eligible) > 0
}

// SuggestRoles assigns the cluster's auto-assign hosts a role as upstream
// does: control plane while the cluster has fewer masters than it wants
// and the host meets the control-plane minimums, worker otherwise. A
// single-node cluster's host is master whatever its hardware or whether
// it sent an inventory (upstream makes it master on registration), and
// its hardware validations then hold it to the single-node minimums.
// Hosts are taken in the order given.
func SuggestRoles(c ClusterFacts, t Thresholds) map[string]models.HostRole {
	masters := 0
	for _, h := range c.Hosts {
		if h.Role == models.HostRoleMaster {
			masters++
		}
	}
	out := map[string]models.HostRole{}
	for _, h := range c.Hosts {
		if h.Role != "" && h.Role != models.HostRoleAutoAssign {
			continue
		}
		if masters < c.controlPlaneCount() && (c.singleNode() || masterCandidate(h, c, t)) {
			out[h.ID] = models.HostRoleMaster
			masters++
			continue
		}
		out[h.ID] = models.HostRoleWorker
	}
	return out
}

func checkMastersCount(c ClusterFacts, t Thresholds) Result {
	roles := SuggestRoles(c, t)
	var masters, arbiters, workers int
	for _, h := range c.Hosts {
		role := h.Role
		if r, ok := roles[h.ID]; ok {
			role = r
		}
		switch role {
		case models.HostRoleMaster, models.HostRoleBootstrap:
			masters++
		case models.HostRoleArbiter:
			arbiters++
		default:
			workers++
		}
	}
	want := c.controlPlaneCount()
	ok, suffix := masters == want, ""
	if want == 2 && arbiters == 0 {
		ok, suffix = false, " and at least 1 arbiter node or the control plane nodes must have fencing credentials"
	}
	if want == 1 && workers != 0 {
		ok = false
	}
	switch {
	case ok:
		return result(ClusterSufficientMastersCount, StatusSuccess, "The cluster has the exact amount of dedicated control plane nodes.")
	case want == 1:
		return result(ClusterSufficientMastersCount, StatusFailure, "Single-node clusters must have a single control plane node and no workers.")
	}
	return result(ClusterSufficientMastersCount, StatusFailure,
		"The cluster must have exactly %d dedicated control plane nodes%s. Add or remove hosts, or change their roles configurations to meet the requirement.", want, suffix)
}

// maxClockGapMinutes is the largest gap between the hosts' clocks upstream
// accepts.
const maxClockGapMinutes = 4

func checkClusterNTP(c ClusterFacts, _ Thresholds) Result {
	var lo, hi int64
	for _, h := range c.Hosts {
		switch {
		case h.HostTime == 0, h.Status == models.HostStatusDisconnected,
			h.Status == models.HostStatusResettingPendingUserAction, h.Status == models.HostStatusDiscovering:
			continue
		}
		if lo == 0 || h.HostTime < lo {
			lo = h.HostTime
		}
		hi = max(hi, h.HostTime)
	}
	if (hi-lo)/60 <= maxClockGapMinutes {
		return result(ClusterNTPServerConfigured, StatusSuccess, "No ntp problems found")
	}
	return result(ClusterNTPServerConfigured, StatusFailure, "Hosts' clocks are not synchronized (there's more than a %d minutes gap between clocks), "+
		"please configure an NTP server via DHCP or set clocks manually.", maxClockGapMinutes)
}

func checkNetworkType(c ClusterFacts, _ Thresholds) Result {
	const id = ClusterNetworkTypeValid
	valid := []string{NetworkTypeOVNKubernetes, NetworkTypeOpenShiftSDN, "Cilium", "Calico", "CiscoACI", "None"}
	sdn := c.NetworkType == NetworkTypeOpenShiftSDN
	switch {
	case !slices.Contains(valid, c.networkType()):
		return result(id, StatusFailure, "The network type is not valid; the valid network types are OpenShiftSDN, OVNKubernetes, Cilium, Calico, CiscoACI, or None")
	case sdn && c.hasIPv6Network():
		return result(id, StatusFailure, "The cluster is configured with IPv6 which is not supported by OpenShiftSDN; use OVNKubernetes instead")
	case sdn && c.ControlPlaneCount == 1:
		return result(id, StatusFailure, "Control Plane Count '1' (SNO) is not supported by OpenShiftSDN; use another network type instead")
	}
	return result(id, StatusSuccess, "The cluster has a valid network type")
}
