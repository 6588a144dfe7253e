// Package nmstate converts the common subset of NMState YAML — the `config`
// of an NMStateConfig, or the `network_yaml` of assisted-service's static
// network config — into NetworkManager keyfiles (`<name>.nmconnection`) and
// the `mac_interface.ini` map (`mac=logical-name` lines) that a discovery
// image uses to pick its files, in Go, without nmstatectl.
//
// Supported: interfaces of type ethernet, bond, vlan and linux-bridge with
// name, state (up, down, absent), mac-address and mtu; ipv4/ipv6 with
// enabled, dhcp, autoconf (IPv6), address (ip, prefix-length), auto-dns,
// auto-gateway and auto-routes; link-aggregation (mode, options, port or
// slaves); vlan (base-iface, id); bridge (options.stp.enabled, port[].name);
// dns-resolver.config (server, search); routes.config (destination,
// next-hop-address, next-hop-interface, metric, table-id).
//
// Anything else is an error that names the key path
// (`interfaces[0].ethtool: unknown or unsupported key`): nothing is dropped
// silently. Output is deterministic: connection UUIDs are UUIDv5 of the
// interface name, sections and keys come in a fixed order, files are sorted
// by name.
//
// Semantics follow nmstate where it matters to a booting host: an interface
// without an ipv4/ipv6 block has that family disabled; bond and bridge ports
// carry no IP settings; a port named by a controller but not declared under
// interfaces is created as a plain ethernet port only when the MAC map names
// it (otherwise it is an error, to catch typos); DNS servers go to the
// interface holding the default route of their family (else the first
// interface with that family configured); a default route in the main table
// becomes that interface's gateway, other routes become routeN entries.
// Ethernet profiles match their MAC (from mac-address or the MAC map) as
// well as their name, so a profile never configures the wrong NIC.
//
// Entry points: Convert (one NMState document plus a MAC map),
// ConvertNMStateConfig / ParseNMStateConfig (an NMStateConfig object or
// spec), ConvertHosts (assisted-service's static_network_config list, one
// "host<i>/" directory per host as upstream lays out /etc/assisted/network)
// and SelectHost (on the booting machine: pick its directory by MAC and
// rename logical NIC names to the machine's, as upstream's
// pre-network-manager-config.sh does). Files must be installed with
// FileMode (0600) or NetworkManager ignores them.
//
// The tests run the real NetworkManager (Debian's network-manager, in a
// network namespace with a private mount namespace and D-Bus) over every
// golden case and check what it loads and what the kernel ends up with.
package nmstate
