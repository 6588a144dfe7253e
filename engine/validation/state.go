package validation

import (
	"slices"
	"strings"

	"github.com/rackboot/rackboot/engine/models"
)

// Host status_info texts (upstream's).
const (
	StatusInfoDisconnected         = "Host has stopped communicating with the installation service"
	StatusInfoMediaDisconnected    = "Unable to read from the discovery media. It was either disconnected or poor network conditions prevented it from being read. Try using the minimal ISO option and be sure to keep the media connected until the installation is completed"
	StatusInfoDiscovering          = "Waiting for host to send hardware details"
	StatusInfoInsufficientHardware = "Host does not meet the minimum hardware requirements: $FAILING_VALIDATIONS"
	StatusInfoPendingForInput      = "Waiting for user input: $FAILING_VALIDATIONS"
	StatusInfoNotReadyForInstall   = "Host cannot be installed due to following failing validation(s): $FAILING_VALIDATIONS"
	StatusInfoKnown                = "Host is ready to be installed"
	StatusInfoReadyToBeBound       = "Host is ready to be bound to a cluster"
)

// Cluster status_info texts (upstream's).
const (
	ClusterStatusInfoPendingForInput = "User input required"
	ClusterStatusInfoInsufficient    = "Cluster is not ready for install"
	ClusterStatusInfoReady           = "Cluster ready to be installed"
)

// statusInfoMaxLength is upstream's limit on status_info.
const statusInfoMaxLength = 2040

// Validation groups the host state machine looks at (upstream's).
func minHardwareIDs() []ID {
	return []ID{HostHasMinValidDisks, HostHasMinCPUCores, HostHasMinMemory, HostCompatibleWithClusterPlatform,
		HostDiskEncryptionSatisfied}
}

func sufficientForInstallIDs() []ID {
	return []ID{HostHasMemoryForRole, HostHasCPUCoresForRole, HostBelongsToMachineCIDR, HostHostnameUnique,
		HostHostnameValid, HostIgnitionDownloadable, HostBelongsToMajorityGroup, HostHasDefaultRoute,
		HostAPIDomainResolved, HostAPIIntDomainResolved, HostAppsDomainResolved, HostDNSWildcardNotConfigured,
		HostValidPlatformNetworkSettings, HostNonOverlappingSubnets, HostTimeSyncedWithService, HostNoIPCollisions,
		HostSufficientNetworkLatency, HostSufficientPacketLoss, HostSufficientInstallationDiskSpeed}
}

func refreshableHostStatuses() []string {
	return []string{models.HostStatusDiscovering, models.HostStatusInsufficient, models.HostStatusKnown,
		models.HostStatusPendingForInput, models.HostStatusDisconnected,
		models.HostStatusDiscoveringUnbound, models.HostStatusInsufficientUnbound,
		models.HostStatusKnownUnbound, models.HostStatusDisconnectedUnbound}
}

// HostStatus decides a host's status after its validations were
// re-evaluated. prev is the current status ("" for a new host); bound says
// whether the host belongs to a cluster, which selects the plain or the
// -unbound states. ok is false when prev is a status that validations do
// not move (binding, installing, installed, ...): keep status and info.
func HostStatus(prev string, bound bool, rs Results) (status, info string, ok bool) {
	if prev != "" && !slices.Contains(refreshableHostStatuses(), prev) {
		return prev, "", false
	}
	if bound {
		status, info = boundStatus(prev, rs)
	} else {
		status, info = unboundStatus(rs)
	}
	return status, fillFailures(info, rs), true
}

func boundStatus(prev string, rs Results) (string, string) {
	switch {
	case !rs.Passed(HostMediaConnected):
		return models.HostStatusDisconnected, StatusInfoMediaDisconnected
	case !rs.Passed(HostConnected):
		return models.HostStatusDisconnected, StatusInfoDisconnected
	case !rs.Passed(HostHasInventory, HostInventoryNotFullyTruncated):
		return models.HostStatusDiscovering, StatusInfoDiscovering
	case !rs.Passed(minHardwareIDs()...):
		return models.HostStatusInsufficient, StatusInfoInsufficientHardware
	case !rs.Passed(HostMachineCIDRDefined):
		return models.HostStatusPendingForInput, StatusInfoPendingForInput
	case !rs.Passed(sufficientForInstallIDs()...):
		return models.HostStatusInsufficient, StatusInfoNotReadyForInstall
	}
	return models.HostStatusKnown, StatusInfoKnown
}

func unboundStatus(rs Results) (string, string) {
	switch {
	case !rs.Passed(HostMediaConnected):
		return models.HostStatusDisconnectedUnbound, StatusInfoMediaDisconnected
	case !rs.Passed(HostConnected):
		return models.HostStatusDisconnectedUnbound, StatusInfoDisconnected
	case !rs.Passed(HostHasInventory, HostInventoryNotFullyTruncated):
		return models.HostStatusDiscoveringUnbound, StatusInfoDiscovering
	case !rs.Passed(append(minHardwareIDs(), HostHostnameValid)...):
		return models.HostStatusInsufficientUnbound, StatusInfoInsufficientHardware
	}
	return models.HostStatusKnownUnbound, StatusInfoReadyToBeBound
}

// fillFailures puts the sorted failure messages in place of
// $FAILING_VALIDATIONS, joined with " ; " as upstream does.
func fillFailures(info string, rs Results) string {
	if !strings.Contains(info, "$FAILING_VALIDATIONS") {
		return info
	}
	msgs := rs.failureMessages()
	slices.Sort(msgs)
	info = strings.Replace(info, "$FAILING_VALIDATIONS", strings.Join(msgs, " ; "), 1)
	if len(info) > statusInfoMaxLength {
		info = info[:statusInfoMaxLength-3] + "..."
	}
	return info
}

// Cluster validation groups (upstream's).
func clusterInputIDs() []ID {
	return []ID{ClusterMachineCIDRDefined, ClusterClusterCIDRDefined, ClusterServiceCIDRDefined,
		ClusterDNSDomainDefined, ClusterPullSecretSet, ClusterIngressVipsDefined, ClusterAPIVipsDefined}
}

func clusterInstallIDs() []ID {
	return []ID{ClusterMachineCIDREqualsCalc, ClusterAPIVipsValid, ClusterIngressVipsValid, ClusterAllHostsReady,
		ClusterSufficientMastersCount, ClusterNetworkPrefixValid, ClusterNoCIDRsOverlapping,
		ClusterNTPServerConfigured, ClusterNetworkTypeValid, ClusterNetworksSameAddressFamilies}
}

// ClusterStatus decides a cluster's status after its validations were
// re-evaluated: pending-for-input while the user still has to provide
// something, insufficient while a requirement for installing fails, ready
// otherwise. ok is false for statuses validations do not move
// (installing, installed, error, ...).
func ClusterStatus(prev string, rs Results) (status, info string, ok bool) {
	switch prev {
	case "", ClusterStatusPendingForInput, ClusterStatusInsufficient, ClusterStatusReady:
	default:
		return prev, "", false
	}
	switch {
	case !rs.Passed(clusterInputIDs()...):
		return ClusterStatusPendingForInput, ClusterStatusInfoPendingForInput, true
	case !rs.Passed(clusterInstallIDs()...):
		return ClusterStatusInsufficient, ClusterStatusInfoInsufficient, true
	}
	return ClusterStatusReady, ClusterStatusInfoReady, true
}

// Cluster statuses the validations decide between (upstream's names).
const (
	ClusterStatusInsufficient    = "insufficient"
	ClusterStatusReady           = "ready"
	ClusterStatusPendingForInput = "pending-for-input"
)
