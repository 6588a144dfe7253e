package nmstate

import (
	"errors"
	"strings"
	"testing"
)

const eth0Static = `
interfaces:
- name: eth0
  type: ethernet
  ipv4:
    enabled: true
    address:
    - ip: 192.0.2.10
      prefix-length: 24
`

func TestConvertErrors(t *testing.T) {
	mac := []NIC{{Name: "eth0", MAC: "02:00:00:00:00:01"}}
	tests := []struct {
		name string
		yaml string
		nics []NIC
		kind error
		msg  string
	}{
		{"unknown top key", "interfaces: []\novs-db: {}\n", nil, ErrUnknownKey,
			"nmstate: ovs-db: unknown or unsupported key"},
		{"unknown interface key", "interfaces:\n- name: eth0\n  type: ethernet\n  ethtool:\n    feature: {}\n", nil, ErrUnknownKey,
			"nmstate: interfaces[0].ethtool: unknown or unsupported key"},
		{"unknown ipv4 key", "interfaces:\n- name: eth0\n  type: ethernet\n  ipv4:\n    enabled: true\n    dhcp-client-id: mac\n", nil, ErrUnknownKey,
			"nmstate: interfaces[0].ipv4.dhcp-client-id: unknown or unsupported key"},
		{"unknown bond option", "interfaces:\n- name: bond0\n  type: bond\n  link-aggregation:\n    mode: 802.3ad\n    options:\n      lacp-rate: fast\n", nil, ErrUnknownKey,
			"nmstate: interfaces[0].link-aggregation.options.lacp-rate: unknown or unsupported key"},
		{"unknown route key", eth0Static + "routes:\n  config:\n  - destination: 0.0.0.0/0\n    next-hop-interface: eth0\n    weight: 2\n", nil, ErrUnknownKey,
			"nmstate: routes.config[0].weight: unknown or unsupported key"},
		{"autoconf on ipv4", "interfaces:\n- name: eth0\n  type: ethernet\n  ipv4:\n    autoconf: true\n", nil, ErrUnknownKey,
			"nmstate: interfaces[0].ipv4.autoconf: unknown or unsupported key"},
		{"bad address", "interfaces:\n- name: eth0\n  type: ethernet\n  ipv4:\n    address:\n    - ip: 192.0.2.300\n      prefix-length: 24\n", nil, ErrInvalid,
			`nmstate: interfaces[0].ipv4.address[0].ip: invalid value: "192.0.2.300" is not an IP address`},
		{"ipv6 address in ipv4", "interfaces:\n- name: eth0\n  type: ethernet\n  ipv4:\n    address:\n    - ip: 2001:db8::1\n      prefix-length: 64\n", nil, ErrInvalid,
			`nmstate: interfaces[0].ipv4.address[0].ip: invalid value: "2001:db8::1" is not an IPv4 address`},
		{"bad prefix", "interfaces:\n- name: eth0\n  type: ethernet\n  ipv4:\n    address:\n    - ip: 192.0.2.1\n      prefix-length: 33\n", nil, ErrInvalid,
			"nmstate: interfaces[0].ipv4.address[0].prefix-length: invalid value: 33 is out of range 0-32"},
		{"bad ipv6 prefix", "interfaces:\n- name: eth0\n  type: ethernet\n  ipv6:\n    address:\n    - ip: 2001:db8::1\n      prefix-length: 129\n", nil, ErrInvalid,
			"nmstate: interfaces[0].ipv6.address[0].prefix-length: invalid value: 129 is out of range 0-128"},
		{"prefix not a number", "interfaces:\n- name: eth0\n  type: ethernet\n  ipv4:\n    address:\n    - ip: 192.0.2.1\n      prefix-length: /24\n", nil, ErrInvalid,
			`nmstate: interfaces[0].ipv4.address[0].prefix-length: invalid value: expected an integer, got "/24"`},
		{"missing prefix", "interfaces:\n- name: eth0\n  type: ethernet\n  ipv4:\n    address:\n    - ip: 192.0.2.1\n", nil, ErrMissing,
			"nmstate: interfaces[0].ipv4.address[0].prefix-length: required key missing"},
		{"vlan without base", "interfaces:\n- name: eth0.5\n  type: vlan\n  vlan:\n    id: 5\n", nil, ErrMissing,
			"nmstate: interfaces[0].vlan.base-iface: required key missing"},
		{"vlan without vlan block", "interfaces:\n- name: eth0.5\n  type: vlan\n", nil, ErrMissing,
			"nmstate: interfaces[0].vlan: required key missing"},
		{"vlan id range", "interfaces:\n- name: eth0.5\n  type: vlan\n  vlan:\n    base-iface: eth0\n    id: 4095\n", nil, ErrInvalid,
			"nmstate: interfaces[0].vlan.id: invalid value: 4095 is out of range 0-4094"},
		{"bond port missing", "interfaces:\n- name: bond0\n  type: bond\n  link-aggregation:\n    mode: active-backup\n    port: [eth0, eth9]\n", mac, ErrUndefined,
			`nmstate: interfaces[0].link-aggregation.port[1]: undefined interface: "eth9" is neither in interfaces nor in the MAC map`},
		{"bond slaves missing", "interfaces:\n- name: bond0\n  type: bond\n  link-aggregation:\n    mode: active-backup\n    slaves: [eth9]\n", nil, ErrUndefined,
			`nmstate: interfaces[0].link-aggregation.slaves[0]: undefined interface: "eth9" is neither in interfaces nor in the MAC map`},
		{"bond option escape", "interfaces:\n- name: bond0\n  type: bond\n  link-aggregation:\n    mode: active-backup\n    options:\n      primary: 'eth0\\x'\n", nil, ErrInvalid,
			`nmstate: interfaces[0].link-aggregation.options.primary: invalid value: "eth0\\x" is not a bond option value`},
		{"bond mode", "interfaces:\n- name: bond0\n  type: bond\n  link-aggregation:\n    mode: lacp\n", nil, ErrInvalid,
			`nmstate: interfaces[0].link-aggregation.mode: invalid value: "lacp" is not one of balance-rr, active-backup, balance-xor, broadcast, 802.3ad, balance-tlb, balance-alb`},
		{"bond without mode", "interfaces:\n- name: bond0\n  type: bond\n  link-aggregation:\n    port: []\n", nil, ErrMissing,
			"nmstate: interfaces[0].link-aggregation.mode: required key missing"},
		{"port with ip", "interfaces:\n- name: eth0\n  type: ethernet\n  ipv4:\n    dhcp: true\n- name: bond0\n  type: bond\n  link-aggregation:\n    mode: active-backup\n    port: [eth0]\n", nil, ErrConflict,
			`nmstate: interfaces[0].ipv4: conflicting settings: IP is enabled on "eth0", a port of bond "bond0"`},
		{"port of two bonds", "interfaces:\n- name: bond0\n  type: bond\n  link-aggregation: {mode: active-backup, port: [eth0]}\n- name: bond1\n  type: bond\n  link-aggregation: {mode: active-backup, port: [eth0]}\n", mac, ErrConflict,
			`nmstate: interfaces[1].link-aggregation.port[0]: conflicting settings: "eth0" is already a port of "bond0"`},
		{"vlan block on ethernet", "interfaces:\n- name: eth0\n  type: ethernet\n  vlan:\n    base-iface: eth1\n    id: 3\n", nil, ErrInvalid,
			`nmstate: interfaces[0].vlan: invalid value: only valid on an interface of type vlan, not "ethernet"`},
		{"unsupported type", "interfaces:\n- name: ovs0\n  type: ovs-bridge\n", nil, ErrInvalid,
			`nmstate: interfaces[0].type: invalid value: "ovs-bridge" is not one of ethernet, bond, vlan, linux-bridge`},
		{"missing type", "interfaces:\n- name: eth0\n", nil, ErrMissing,
			"nmstate: interfaces[0].type: required key missing"},
		{"bad name", "interfaces:\n- name: ../etc\n  type: ethernet\n", nil, ErrInvalid,
			`nmstate: interfaces[0].name: invalid value: "../etc" is not an interface name (1-15 characters, no '/', ':', blanks or quotes)`},
		{"duplicate interface", "interfaces:\n- name: eth0\n  type: ethernet\n- name: eth0\n  type: ethernet\n", nil, ErrConflict,
			`nmstate: interfaces[1].name: conflicting settings: interface "eth0" is defined twice (also interfaces[0])`},
		{"duplicate key", "interfaces:\n- name: eth0\n  name: eth1\n  type: ethernet\n", nil, ErrInvalid,
			"nmstate: interfaces[0].name: invalid value: key given twice"},
		{"bad mac", "interfaces:\n- name: eth0\n  type: ethernet\n  mac-address: 02:00:00:00:00\n", nil, ErrInvalid,
			`nmstate: interfaces[0].mac-address: invalid value: "02:00:00:00:00" is not a MAC address`},
		{"mac differs from map", "interfaces:\n- name: eth0\n  type: ethernet\n  mac-address: 02:00:00:00:00:99\n", mac, ErrConflict,
			"nmstate: interfaces[0].mac-address: conflicting settings: 02:00:00:00:00:99 differs from 02:00:00:00:00:01 in the MAC map (nics[0])"},
		{"bad map mac", eth0Static, []NIC{{Name: "eth0", MAC: "zz"}}, ErrInvalid,
			`nmstate: nics[0].macAddress: invalid value: "zz" is not a MAC address`},
		{"map mac twice", eth0Static, []NIC{{Name: "eth0", MAC: "02:00:00:00:00:01"}, {Name: "eth1", MAC: "02:00:00:00:00:01"}}, ErrConflict,
			"nmstate: nics[1].macAddress: conflicting settings: 02:00:00:00:00:01 is mapped twice (also nics[0])"},
		{"disabled with address", "interfaces:\n- name: eth0\n  type: ethernet\n  ipv4:\n    enabled: false\n    address:\n    - {ip: 192.0.2.1, prefix-length: 24}\n", nil, ErrConflict,
			"nmstate: interfaces[0].ipv4: conflicting settings: enabled is false but dhcp, autoconf or addresses are set"},
		{"slaac only", "interfaces:\n- name: eth0\n  type: ethernet\n  ipv6:\n    autoconf: true\n", nil, ErrConflict,
			"nmstate: interfaces[0].ipv6.autoconf: conflicting settings: autoconf without dhcp is not supported (NetworkManager has no SLAAC-only method)"},
		{"enabled not bool", "interfaces:\n- name: eth0\n  type: ethernet\n  ipv4:\n    enabled: maybe\n", nil, ErrInvalid,
			`nmstate: interfaces[0].ipv4.enabled: invalid value: expected true or false, got "maybe"`},
		{"mtu not a number", "interfaces:\n- name: eth0\n  type: ethernet\n  mtu: 1500.5\n", nil, ErrInvalid,
			`nmstate: interfaces[0].mtu: invalid value: expected an integer, got "1500.5"`},
		{"route to undefined", eth0Static + "routes:\n  config:\n  - destination: 0.0.0.0/0\n    next-hop-address: 192.0.2.1\n    next-hop-interface: eth7\n", nil, ErrUndefined,
			`nmstate: routes.config[0].next-hop-interface: undefined interface: "eth7" is not defined in interfaces`},
		{"route without interface", eth0Static + "routes:\n  config:\n  - destination: 0.0.0.0/0\n    next-hop-address: 192.0.2.1\n", nil, ErrMissing,
			"nmstate: routes.config[0].next-hop-interface: required key missing"},
		{"route family", eth0Static + "routes:\n  config:\n  - destination: ::/0\n    next-hop-address: 2001:db8::1\n    next-hop-interface: eth0\n", nil, ErrConflict,
			`nmstate: routes.config[0].next-hop-interface: conflicting settings: "eth0" has no IPv6 configured (dhcp or addresses)`},
		{"route next hop family", eth0Static + "routes:\n  config:\n  - destination: 10.0.0.0/8\n    next-hop-address: 2001:db8::1\n    next-hop-interface: eth0\n", nil, ErrInvalid,
			`nmstate: routes.config[0].next-hop-address: invalid value: "2001:db8::1" is not an IPv4 address`},
		{"route bad destination", eth0Static + "routes:\n  config:\n  - destination: 10.0.0.0/40\n    next-hop-interface: eth0\n", nil, ErrInvalid,
			`nmstate: routes.config[0].destination: invalid value: "10.0.0.0/40" is not an IP prefix`},
		{"route metric range", eth0Static + "routes:\n  config:\n  - destination: 10.0.0.0/8\n    next-hop-interface: eth0\n    metric: -1\n", nil, ErrInvalid,
			"nmstate: routes.config[0].metric: invalid value: -1 is out of range 0-4294967295"},
		{"dns bad server", eth0Static + "dns-resolver:\n  config:\n    server: [192.0.2.999]\n", nil, ErrInvalid,
			`nmstate: dns-resolver.config.server[0]: invalid value: "192.0.2.999" is not an IP address`},
		{"dns without interface", eth0Static + "dns-resolver:\n  config:\n    server: [2001:db8::53]\n", nil, ErrConflict,
			"nmstate: dns-resolver.config.server: conflicting settings: no interface has IPv6 configured to carry DNS server 2001:db8::53"},
		{"interfaces not a list", "interfaces: eth0\n", nil, ErrInvalid,
			"nmstate: interfaces: invalid value: expected a list, got str"},
		{"no interfaces", "dns-resolver: {}\n", nil, ErrMissing,
			"nmstate: interfaces: required key missing: no interface to configure"},
		{"empty", "", nil, ErrMissing, "nmstate: required key missing: empty document"},
		{"not yaml", "interfaces: [\n", nil, ErrSyntax, "nmstate: malformed YAML: yaml: line 1: did not find expected node content"},
		{"two documents", eth0Static + "---\n" + eth0Static, nil, ErrSyntax, "nmstate: malformed YAML: more than one YAML document"},
		{"control character", "interfaces:\n- name: \"eth0\\n[x]\"\n  type: ethernet\n", nil, ErrInvalid,
			`nmstate: interfaces[0].name: invalid value: "eth0\n[x]" contains a control character`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files, err := Convert([]byte(tc.yaml), tc.nics)
			if err == nil {
				t.Fatalf("no error; files %v", files)
			}
			if err.Error() != tc.msg {
				t.Errorf("error\n got %s\nwant %s", err, tc.msg)
			}
			if !errors.Is(err, tc.kind) {
				t.Errorf("error %v does not wrap %v", err, tc.kind)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Errorf("error %T is not an *Error", err)
			}
		})
	}
}

func TestNMStateConfigErrors(t *testing.T) {
	tests := []struct{ name, doc, msg string }{
		{"wrong kind", "kind: InfraEnv\nspec: {}\n", `nmstate: kind: invalid value: "InfraEnv" is not one of NMStateConfig`},
		{"config path", "kind: NMStateConfig\nspec:\n  config:\n    interfaces:\n    - name: eth0\n      type: ethernet\n      mtu: 9\n",
			"nmstate: spec.config.interfaces[0].mtu: invalid value: 9 is out of range 68-65535"},
		{"bare spec config path", "config:\n  interfaces:\n  - name: eth0\n    type: wifi\n",
			`nmstate: config.interfaces[0].type: invalid value: "wifi" is not one of ethernet, bond, vlan, linux-bridge`},
		{"spec mac", "kind: NMStateConfig\nspec:\n  config: {interfaces: [{name: eth0, type: ethernet}]}\n  interfaces:\n  - name: eth0\n    macAddress: nope\n",
			`nmstate: spec.interfaces[0].macAddress: invalid value: "nope" is not a MAC address`},
		{"spec unknown", "kind: NMStateConfig\nspec:\n  config: {interfaces: [{name: eth0, type: ethernet}]}\n  interface: []\n",
			"nmstate: spec.interface: unknown or unsupported key"},
		{"no config", "kind: NMStateConfig\nspec:\n  interfaces: []\n", "nmstate: spec.config: required key missing"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ConvertNMStateConfig([]byte(tc.doc))
			if err == nil || err.Error() != tc.msg {
				t.Errorf("error\n got %v\nwant %s", err, tc.msg)
			}
		})
	}
}

func TestConvertHostsErrors(t *testing.T) {
	good := HostStaticNetworkConfig{NetworkYAML: eth0Static, MACInterfaceMap: []MACInterface{{MACAddress: "02:00:00:00:00:01", LogicalNICName: "eth0"}}}
	tests := []struct {
		name  string
		hosts []HostStaticNetworkConfig
		kind  error
		msg   string
	}{
		{"empty map", []HostStaticNetworkConfig{good, {NetworkYAML: eth0Static}}, ErrMissing,
			"host 1: nmstate: mac_interface_map: required key missing: a host needs at least one MAC to be recognised by"},
		{"bad nic name", []HostStaticNetworkConfig{{NetworkYAML: eth0Static, MACInterfaceMap: []MACInterface{{MACAddress: "02:00:00:00:00:01", LogicalNICName: ""}}}}, ErrInvalid,
			`host 0: nmstate: mac_interface_map[0].logical_nic_name: invalid value: "" is not an interface name (1-15 characters, no '/', ':', blanks or quotes)`},
		{"bad yaml", []HostStaticNetworkConfig{{NetworkYAML: "interfaces: [{name: eth0, type: ethernet, ipv4: {dhcp: maybe}}]", MACInterfaceMap: good.MACInterfaceMap}}, ErrInvalid,
			`host 0: nmstate: interfaces[0].ipv4.dhcp: invalid value: expected true or false, got "maybe"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ConvertHosts(tc.hosts)
			if err == nil || err.Error() != tc.msg || !errors.Is(err, tc.kind) {
				t.Errorf("error\n got %v\nwant %s (wrapping %v)", err, tc.msg, tc.kind)
			}
		})
	}
}

func TestAliasBomb(t *testing.T) {
	doc := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	prev := "a"
	for _, name := range []string{"b", "c", "d", "e", "f", "g"} {
		doc += name + ": &" + name + " [" + strings.Repeat("*"+prev+", ", 9) + "*" + prev + "]\n"
		prev = name
	}
	_, err := Convert([]byte(doc), nil)
	want := "nmstate: invalid value: document expands to more than 131072 nodes (aliases)"
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %s", err, want)
	}
}

// YAML 1.1 booleans and quoted numbers (as kubectl and older nmstate read
// them) mean the same as their YAML 1.2 spelling.
func TestLenientScalars(t *testing.T) {
	canonical := "interfaces:\n- name: eth0\n  type: ethernet\n  mtu: 9000\n  ipv4:\n    enabled: true\n    dhcp: false\n    address:\n    - {ip: 192.0.2.1, prefix-length: 24}\n"
	lenient := "interfaces:\n- name: eth0\n  type: ethernet\n  mtu: \"9000\"\n  ipv4:\n    enabled: yes\n    dhcp: \"off\"\n    address:\n    - {ip: 192.0.2.1, prefix-length: \"24\"}\n"
	a, err := Convert([]byte(canonical), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Convert([]byte(lenient), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !sameFiles(a, b) {
		t.Errorf("lenient spelling converts differently:\n%s\nvs\n%s", b[0].Data, a[0].Data)
	}
}
