package validation

// Host validation ids (upstream's HostValidationID values).
const (
	HostConnected                       ID = "connected"
	HostMediaConnected                  ID = "media-connected"
	HostHasInventory                    ID = "has-inventory"
	HostInventoryNotPartiallyTruncated  ID = "inventory-not-partially-truncated"
	HostInventoryNotFullyTruncated      ID = "inventory-not-fully-truncated"
	HostHasMinCPUCores                  ID = "has-min-cpu-cores"
	HostHasMinMemory                    ID = "has-min-memory"
	HostHasMinValidDisks                ID = "has-min-valid-disks"
	HostMachineCIDRDefined              ID = "machine-cidr-defined"
	HostHasCPUCoresForRole              ID = "has-cpu-cores-for-role"
	HostHasMemoryForRole                ID = "has-memory-for-role"
	HostHostnameUnique                  ID = "hostname-unique"
	HostBelongsToMachineCIDR            ID = "belongs-to-machine-cidr"
	HostHostnameValid                   ID = "hostname-valid"
	HostIgnitionDownloadable            ID = "ignition-downloadable"
	HostBelongsToMajorityGroup          ID = "belongs-to-majority-group"
	HostMTUValid                        ID = "mtu-valid"
	HostValidPlatformNetworkSettings    ID = "valid-platform-network-settings"
	HostNTPSynced                       ID = "ntp-synced"
	HostTimeSyncedWithService           ID = "time-synced-between-host-and-service"
	HostHasDefaultRoute                 ID = "has-default-route"
	HostAPIDomainResolved               ID = "api-domain-name-resolved-correctly"
	HostAPIIntDomainResolved            ID = "api-int-domain-name-resolved-correctly"
	HostAppsDomainResolved              ID = "apps-domain-name-resolved-correctly"
	HostDNSWildcardNotConfigured        ID = "dns-wildcard-not-configured"
	HostNonOverlappingSubnets           ID = "non-overlapping-subnets"
	HostNoIPCollisions                  ID = "no-ip-collisions-in-network"
	HostContainerImagesAvailable        ID = "container-images-available"
	HostSufficientInstallationDiskSpeed ID = "sufficient-installation-disk-speed"
	HostSufficientNetworkLatency        ID = "sufficient-network-latency-requirement-for-role"
	HostSufficientPacketLoss            ID = "sufficient-packet-loss-requirement-for-role"
	HostCompatibleWithClusterPlatform   ID = "compatible-with-cluster-platform"
	HostDiskEncryptionSatisfied         ID = "disk-encryption-requirements-satisfied"
)

// Cluster validation ids (upstream's ClusterValidationID values).
const (
	ClusterMachineCIDRDefined          ID = "machine-cidr-defined"
	ClusterMachineCIDREqualsCalc       ID = "machine-cidr-equals-to-calculated-cidr"
	ClusterAPIVipsDefined              ID = "api-vips-defined"
	ClusterAPIVipsValid                ID = "api-vips-valid"
	ClusterNetworkTypeValid            ID = "network-type-valid"
	ClusterIngressVipsDefined          ID = "ingress-vips-defined"
	ClusterIngressVipsValid            ID = "ingress-vips-valid"
	ClusterAllHostsReady               ID = "all-hosts-are-ready-to-install"
	ClusterSufficientMastersCount      ID = "sufficient-masters-count"
	ClusterDNSDomainDefined            ID = "dns-domain-defined"
	ClusterPullSecretSet               ID = "pull-secret-set"
	ClusterClusterCIDRDefined          ID = "cluster-cidr-defined"
	ClusterServiceCIDRDefined          ID = "service-cidr-defined"
	ClusterNoCIDRsOverlapping          ID = "no-cidrs-overlapping"
	ClusterNetworkPrefixValid          ID = "network-prefix-valid"
	ClusterNTPServerConfigured         ID = "ntp-server-configured"
	ClusterNetworksSameAddressFamilies ID = "networks-same-address-families"
)

// categoryOf is upstream's grouping. Host and cluster ids that share a name
// (machine-cidr-defined) share a category too.
func categoryOf(id ID) Category {
	switch id {
	case HostHasInventory, HostInventoryNotPartiallyTruncated, HostInventoryNotFullyTruncated,
		HostHasMinCPUCores, HostHasMinMemory, HostHasMinValidDisks, HostHasCPUCoresForRole,
		HostHasMemoryForRole, HostHostnameUnique, HostHostnameValid, HostSufficientInstallationDiskSpeed,
		HostCompatibleWithClusterPlatform, HostDiskEncryptionSatisfied:
		return CategoryHardware
	case ClusterAllHostsReady, ClusterSufficientMastersCount:
		return CategoryHostsData
	case ClusterPullSecretSet:
		return CategoryConfiguration
	}
	return CategoryNetwork
}
