package nmstate

import (
	"fmt"
	"path"

	"gopkg.in/yaml.v3"
)

// MACInterface is one entry of upstream's mac_interface_map.
type MACInterface struct {
	MACAddress     string `json:"mac_address"`
	LogicalNICName string `json:"logical_nic_name"`
}

// HostStaticNetworkConfig is one element of assisted-service's
// static_network_config list (REST API v2, same JSON names).
type HostStaticNetworkConfig struct {
	MACInterfaceMap []MACInterface `json:"mac_interface_map"`
	NetworkYAML     string         `json:"network_yaml"`
}

// HostDir is the directory of the i-th host's files under NetworkDir, as
// upstream names it.
func HostDir(i int) string { return fmt.Sprintf("host%d", i) }

// ConvertHosts converts a static_network_config list: host i's keyfiles
// and MACInterfaceFile under HostDir(i). Errors say which host and wrap
// the *Error of that host's conversion; MAC map errors name
// "mac_interface_map[j].mac_address" or "...logical_nic_name".
func ConvertHosts(hosts []HostStaticNetworkConfig) ([]File, error) {
	var out []File
	for i, h := range hosts {
		files, err := convertHost(h)
		if err != nil {
			return nil, fmt.Errorf("host %d: %w", i, err)
		}
		for _, f := range files {
			out = append(out, File{Name: path.Join(HostDir(i), f.Name), Data: f.Data})
		}
	}
	return out, nil
}

func convertHost(h HostStaticNetworkConfig) ([]File, error) {
	if len(h.MACInterfaceMap) == 0 {
		return nil, errAt("mac_interface_map", ErrMissing, "a host needs at least one MAC to be recognised by")
	}
	nics := make([]NIC, len(h.MACInterfaceMap))
	for i, m := range h.MACInterfaceMap {
		nics[i] = NIC{Name: m.LogicalNICName, MAC: m.MACAddress}
	}
	entries, err := checkNICs(nics, "mac_interface_map", "logical_nic_name", "mac_address")
	if err != nil {
		return nil, err
	}
	root, err := decode([]byte(h.NetworkYAML))
	if err != nil {
		return nil, err
	}
	return convertNode(root, "", entries)
}

// ParseNMStateConfig reads an NMStateConfig — the whole object
// (apiVersion, kind: NMStateConfig, metadata, spec) or only its spec
// (config, interfaces) — checks that it converts, and returns it as one
// static_network_config entry. Errors name "spec.config.…" (or
// "config.…") and "spec.interfaces[i].macAddress".
func ParseNMStateConfig(doc []byte) (HostStaticNetworkConfig, error) {
	var h HostStaticNetworkConfig
	root, err := decode(doc)
	if err != nil {
		return h, err
	}
	spec, base, err := nmstateSpec(root)
	if err != nil {
		return h, err
	}
	f, err := mapping(spec, base, "config", "interfaces")
	if err != nil {
		return h, err
	}
	cfg, err := f.require("config")
	if err != nil {
		return h, err
	}
	nics, err := specNICs(f)
	if err != nil {
		return h, err
	}
	entries, err := checkNICs(nics, childPath(base, "interfaces"), "name", "macAddress")
	if err != nil {
		return h, err
	}
	if _, err := convertNode(cfg.node, cfg.path, entries); err != nil {
		return h, err
	}
	text, err := yaml.Marshal(cfg.node)
	if err != nil {
		return h, errAt(cfg.path, ErrInvalid, err.Error())
	}
	h.NetworkYAML = string(text)
	for _, n := range nics {
		h.MACInterfaceMap = append(h.MACInterfaceMap, MACInterface{MACAddress: n.MAC, LogicalNICName: n.Name})
	}
	return h, nil
}

// ConvertNMStateConfig is ParseNMStateConfig followed by the conversion of
// its one host: keyfiles and MACInterfaceFile, not under a host directory.
func ConvertNMStateConfig(doc []byte) ([]File, error) {
	h, err := ParseNMStateConfig(doc)
	if err != nil {
		return nil, err
	}
	return convertHost(h)
}

// nmstateSpec returns the spec node of a whole object, or the document
// itself when it is a bare spec.
func nmstateSpec(root *yaml.Node) (*yaml.Node, string, error) {
	if root.Kind != yaml.MappingNode {
		return nil, "", errAt("", ErrInvalid, "expected a mapping, got "+kindName(root))
	}
	if !hasKey(root, "kind") && !hasKey(root, "spec") {
		return root, "", nil
	}
	f, err := mapping(root, "", "apiVersion", "kind", "metadata", "spec", "status")
	if err != nil {
		return nil, "", err
	}
	kind, err := f.require("kind")
	if err != nil {
		return nil, "", err
	}
	if _, err := oneOf(kind, "NMStateConfig"); err != nil {
		return nil, "", err
	}
	spec, err := f.require("spec")
	if err != nil {
		return nil, "", err
	}
	return spec.node, "spec", nil
}

func specNICs(f fields) ([]NIC, error) {
	it, ok := f.get("interfaces")
	if !ok {
		return nil, nil
	}
	items, err := sequence(it.node, it.path)
	if err != nil {
		return nil, err
	}
	nics := make([]NIC, len(items))
	for i, n := range items {
		p := indexPath(it.path, i)
		m, err := mapping(n, p, "name", "macAddress")
		if err != nil {
			return nil, err
		}
		for _, k := range []struct {
			key string
			dst *string
		}{{"name", &nics[i].Name}, {"macAddress", &nics[i].MAC}} {
			v, err := m.require(k.key)
			if err != nil {
				return nil, err
			}
			if *k.dst, err = str(v.node, v.path); err != nil {
				return nil, err
			}
		}
	}
	return nics, nil
}

func hasKey(m *yaml.Node, key string) bool {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := deref(m.Content[i]); k.Kind == yaml.ScalarNode && k.Value == key {
			return true
		}
	}
	return false
}
