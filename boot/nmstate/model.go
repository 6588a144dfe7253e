package nmstate

import (
	"net"
	"net/netip"
)

// netState is a parsed, checked NMState document.
type netState struct {
	base   string // key path of the document inside its container, "" at the top
	ifaces []*iface
	dns    dnsConfig
	routes []route
}

type iface struct {
	path   string // "interfaces[i]"
	name   string
	typ    string // ethernet, bond, vlan, linux-bridge
	state  string // up, down, absent
	mac    net.HardwareAddr
	mtu    int64 // 0: not set
	ipv4   *ipConfig
	ipv6   *ipConfig
	bond   *bondConfig
	vlan   *vlanConfig
	bridge *bridgeConfig

	controller string // set by link: the bond or bridge this is a port of
	portType   string // "bond" or "bridge"
	implicit   bool   // a port created from the MAC map
}

type ipConfig struct {
	path        string
	enabled     bool
	dhcp        bool
	autoconf    bool // IPv6 only
	addrs       []netip.Prefix
	autoDNS     *bool
	autoGateway *bool
	autoRoutes  *bool
}

type bondConfig struct {
	path    string
	mode    string
	options [][2]string // sorted by name
	ports   []string
	portKey string // "port" or "slaves", for error paths
}

type vlanConfig struct {
	path string
	base string
	id   int64
}

type bridgeConfig struct {
	path  string
	stp   *bool
	ports []string
}

type dnsConfig struct {
	servers []netip.Addr
	search  []string
}

type route struct {
	path    string
	dest    netip.Prefix
	nextHop netip.Addr // invalid when not given
	iface   string
	metric  *int64
	table   *int64
}

var bondModes = []string{"balance-rr", "active-backup", "balance-xor", "broadcast", "802.3ad", "balance-tlb", "balance-alb"}

// bondOptions are the kernel bonding options NetworkManager accepts in [bond].
var bondOptions = []string{
	"ad_actor_sys_prio", "ad_actor_system", "ad_select", "ad_user_port_key",
	"all_slaves_active", "arp_all_targets", "arp_interval", "arp_ip_target",
	"arp_missed_max", "arp_validate", "balance_slb", "downdelay", "fail_over_mac",
	"lacp_active", "lacp_rate", "lp_interval", "miimon", "min_links", "ns_ip6_target",
	"num_grat_arp", "num_unsol_na", "packets_per_slave", "peer_notif_delay", "primary",
	"primary_reselect", "resend_igmp", "tlb_dynamic_lb", "updelay", "use_carrier",
	"xmit_hash_policy",
}
