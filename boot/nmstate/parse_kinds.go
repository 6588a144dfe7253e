package nmstate

import (
	"fmt"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

func parseBond(n *yaml.Node, path string) (*bondConfig, error) {
	f, err := mapping(n, path, "mode", "options", "port", "slaves")
	if err != nil {
		return nil, err
	}
	b := &bondConfig{path: path}
	it, err := f.require("mode")
	if err != nil {
		return nil, err
	}
	if b.mode, err = oneOf(it, bondModes...); err != nil {
		return nil, err
	}
	if it, ok := f.get("options"); ok {
		if b.options, err = parseBondOptions(it.node, it.path); err != nil {
			return nil, err
		}
	}
	_, hasPort := f.get("port")
	_, hasSlaves := f.get("slaves")
	if hasPort && hasSlaves {
		return nil, errAt(childPath(path, "slaves"), ErrConflict, "give either port or slaves, not both")
	}
	b.portKey = "port"
	if hasSlaves {
		b.portKey = "slaves"
	}
	if it, ok := f.get(b.portKey); ok {
		if b.ports, err = portList(it.node, it.path); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func parseBondOptions(n *yaml.Node, path string) ([][2]string, error) {
	f, err := mapping(n, path, bondOptions...)
	if err != nil {
		return nil, err
	}
	out := make([][2]string, 0, len(f.items))
	for _, it := range f.items {
		v, err := str(it.node, it.path)
		if err != nil {
			return nil, err
		}
		if it.node.Tag == "!!bool" {
			if b, _ := boolean(it.node, it.path); b {
				v = "1"
			} else {
				v = "0"
			}
		}
		if v == "" || strings.ContainsAny(v, " \t\\#") {
			return nil, errAt(it.path, ErrInvalid, fmt.Sprintf("%q is not a bond option value", v))
		}
		out = append(out, [2]string{it.key, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out, nil
}

func portList(n *yaml.Node, path string) ([]string, error) {
	items, err := sequence(n, path)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(items))
	seen := make(map[string]bool, len(items))
	for i, it := range items {
		name, err := ifaceName(it, indexPath(path, i))
		if err != nil {
			return nil, err
		}
		if seen[name] {
			return nil, errAt(indexPath(path, i), ErrInvalid, fmt.Sprintf("port %q listed twice", name))
		}
		seen[name] = true
		out = append(out, name)
	}
	return out, nil
}

func parseVLAN(n *yaml.Node, path string) (*vlanConfig, error) {
	f, err := mapping(n, path, "base-iface", "id")
	if err != nil {
		return nil, err
	}
	v := &vlanConfig{path: path}
	it, err := f.require("base-iface")
	if err != nil {
		return nil, err
	}
	if v.base, err = ifaceName(it.node, it.path); err != nil {
		return nil, err
	}
	if it, err = f.require("id"); err != nil {
		return nil, err
	}
	v.id, err = integer(it.node, it.path, 0, 4094)
	return v, err
}

func parseBridge(n *yaml.Node, path string) (*bridgeConfig, error) {
	f, err := mapping(n, path, "options", "port")
	if err != nil {
		return nil, err
	}
	br := &bridgeConfig{path: path}
	if it, ok := f.get("options"); ok {
		opts, err := mapping(it.node, it.path, "stp")
		if err != nil {
			return nil, err
		}
		if it, ok := opts.get("stp"); ok {
			stp, err := mapping(it.node, it.path, "enabled")
			if err != nil {
				return nil, err
			}
			if br.stp, err = optBool(stp, "enabled"); err != nil {
				return nil, err
			}
		}
	}
	if it, ok := f.get("port"); ok {
		if br.ports, err = bridgePorts(it.node, it.path); err != nil {
			return nil, err
		}
	}
	return br, nil
}

func bridgePorts(n *yaml.Node, path string) ([]string, error) {
	items, err := sequence(n, path)
	if err != nil {
		return nil, err
	}
	var out []string
	seen := make(map[string]bool, len(items))
	for i, it := range items {
		p, err := mapping(it, indexPath(path, i), "name")
		if err != nil {
			return nil, err
		}
		nf, err := p.require("name")
		if err != nil {
			return nil, err
		}
		name, err := ifaceName(nf.node, nf.path)
		if err != nil {
			return nil, err
		}
		if seen[name] {
			return nil, errAt(nf.path, ErrInvalid, fmt.Sprintf("port %q listed twice", name))
		}
		seen[name] = true
		out = append(out, name)
	}
	return out, nil
}
