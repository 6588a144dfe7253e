package models

// DomainResolutionRequest is the argument of the domain-resolution step.
type DomainResolutionRequest struct {
	Domains []DomainResolutionRequestDomain `json:"domains"`
}

// DomainResolutionRequestDomain is one name to resolve.
type DomainResolutionRequestDomain struct {
	DomainName string `json:"domain_name"`
}

// DomainResolutionResponse is the output of the domain-resolution step.
type DomainResolutionResponse struct {
	Resolutions []*DomainResolutionResponseDomain `json:"resolutions"`
}

// DomainResolutionResponseDomain is what one name resolved to.
type DomainResolutionResponseDomain struct {
	Cnames        []string `json:"cnames"`
	DomainName    string   `json:"domain_name"`
	IPV4Addresses []string `json:"ipv4_addresses"`
	IPV6Addresses []string `json:"ipv6_addresses"`
}

// NtpSynchronizationRequest is the argument of the ntp-synchronizer step.
type NtpSynchronizationRequest struct {
	NtpSource string `json:"ntp_source"`
}

// NtpSynchronizationResponse is the output of the ntp-synchronizer step.
type NtpSynchronizationResponse struct {
	NtpSources []*NtpSource `json:"ntp_sources"`
}

// NtpSource is one time source and its state.
type NtpSource struct {
	SourceName  string      `json:"source_name,omitempty"`
	SourceState SourceState `json:"source_state,omitempty"`
}

// SourceState is the state of an NTP source as chrony reports it.
type SourceState string

// NTP source states.
const (
	SourceStateSynced      SourceState = "synced"
	SourceStateCombined    SourceState = "combined"
	SourceStateNotCombined SourceState = "not_combined"
	SourceStateError       SourceState = "error"
	SourceStateVariable    SourceState = "variable"
	SourceStateUnreachable SourceState = "unreachable"
)

// ConnectivityCheckParams is the argument of the connectivity-check step:
// the other hosts and their NICs.
type ConnectivityCheckParams []*ConnectivityCheckHost

// ConnectivityCheckHost is one host to check connectivity to.
type ConnectivityCheckHost struct {
	HostID string                  `json:"host_id,omitempty"`
	Nics   []*ConnectivityCheckNic `json:"nics"`
}

// ConnectivityCheckNic is one NIC of a host to check.
type ConnectivityCheckNic struct {
	IPAddresses []string `json:"ip_addresses"`
	Mac         string   `json:"mac,omitempty"`
	Name        string   `json:"name,omitempty"`
}

// ConnectivityReport is the output of the connectivity-check step.
type ConnectivityReport struct {
	RemoteHosts []*ConnectivityRemoteHost `json:"remote_hosts"`
}

// ConnectivityRemoteHost is what one remote host looked like from here.
type ConnectivityRemoteHost struct {
	HostID         string            `json:"host_id,omitempty"`
	L2Connectivity []*L2Connectivity `json:"l2_connectivity"`
	L3Connectivity []*L3Connectivity `json:"l3_connectivity"`
	MtuReport      []*MtuReport      `json:"mtu_report"`
}

// L2Connectivity is an ARP-level check of one remote address.
type L2Connectivity struct {
	OutgoingIPAddress string `json:"outgoing_ip_address,omitempty"`
	OutgoingNic       string `json:"outgoing_nic,omitempty"`
	RemoteIPAddress   string `json:"remote_ip_address,omitempty"`
	RemoteMac         string `json:"remote_mac,omitempty"`
	Successful        bool   `json:"successful,omitempty"`
}

// L3Connectivity is a ping-level check of one remote address.
type L3Connectivity struct {
	AverageRTTMs         float64 `json:"average_rtt_ms,omitempty"`
	OutgoingNic          string  `json:"outgoing_nic,omitempty"`
	PacketLossPercentage float64 `json:"packet_loss_percentage,omitempty"`
	RemoteIPAddress      string  `json:"remote_ip_address,omitempty"`
	Successful           bool    `json:"successful,omitempty"`
}

// MtuReport says whether full-MTU packets reached one remote address.
type MtuReport struct {
	MtuSuccessful   bool   `json:"mtu_successful,omitempty"`
	OutgoingNic     string `json:"outgoing_nic,omitempty"`
	RemoteIPAddress string `json:"remote_ip_address,omitempty"`
}

// FreeAddressesRequest is the argument of free-network-addresses: CIDRs.
type FreeAddressesRequest []string

// FreeNetworksAddresses is the output of free-network-addresses.
type FreeNetworksAddresses []*FreeNetworkAddresses

// FreeNetworkAddresses lists the unused addresses found in one network.
type FreeNetworkAddresses struct {
	FreeAddresses []string `json:"free_addresses"`
	Network       string   `json:"network,omitempty"`
}

// DiskSpeedCheckRequest is the argument of installation-disk-speed-check:
// the installation disk and the longest fdatasync it may take.
type DiskSpeedCheckRequest struct {
	Path        string `json:"path"`
	ThresholdMs int64  `json:"threshold_ms,omitempty"`
}

// DiskSpeedCheckResponse is the output of installation-disk-speed-check:
// the disk's 99th percentile fdatasync duration in milliseconds.
type DiskSpeedCheckResponse struct {
	IoSyncDuration int64  `json:"io_sync_duration,omitempty"`
	Path           string `json:"path,omitempty"`
}
