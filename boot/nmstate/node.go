package nmstate

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// field is one present (non-null) key of a mapping.
type field struct {
	key  string
	node *yaml.Node
	path string
}

// fields is a checked mapping: keys in document order, all known.
type fields struct {
	path  string
	items []field
}

func childPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func indexPath(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	n = deref(n)
	return n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null")
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return strings.TrimPrefix(n.Tag, "!!")
	}
	return "not a value"
}

// mapping checks that n is a mapping whose keys are all in allowed, with no
// key twice. Keys with a null value are treated as absent.
func mapping(n *yaml.Node, path string, allowed ...string) (fields, error) {
	n = deref(n)
	f := fields{path: path}
	if n.Kind != yaml.MappingNode {
		return f, errAt(path, ErrInvalid, "expected a mapping, got "+kindName(n))
	}
	seen := make(map[string]bool, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := deref(n.Content[i])
		if k.Kind != yaml.ScalarNode {
			return f, errAt(path, ErrInvalid, "a key is "+kindName(k)+", not a string")
		}
		p := childPath(path, k.Value)
		if !contains(allowed, k.Value) {
			return f, errAt(p, ErrUnknownKey, "")
		}
		if seen[k.Value] {
			return f, errAt(p, ErrInvalid, "key given twice")
		}
		seen[k.Value] = true
		if !isNull(n.Content[i+1]) {
			f.items = append(f.items, field{key: k.Value, node: deref(n.Content[i+1]), path: p})
		}
	}
	return f, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (f fields) get(key string) (field, bool) {
	for _, it := range f.items {
		if it.key == key {
			return it, true
		}
	}
	return field{}, false
}

func (f fields) require(key string) (field, error) {
	it, ok := f.get(key)
	if !ok {
		return it, errAt(childPath(f.path, key), ErrMissing, "")
	}
	return it, nil
}

func sequence(n *yaml.Node, path string) ([]*yaml.Node, error) {
	n = deref(n)
	if n.Kind != yaml.SequenceNode {
		return nil, errAt(path, ErrInvalid, "expected a list, got "+kindName(n))
	}
	out := make([]*yaml.Node, len(n.Content))
	for i, c := range n.Content {
		out[i] = deref(c)
	}
	return out, nil
}

// str returns a scalar as text; control characters are refused because
// every string ends up in an INI line.
func str(n *yaml.Node, path string) (string, error) {
	n = deref(n)
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", errAt(path, ErrInvalid, "expected a string, got "+kindName(n))
	}
	for _, r := range n.Value {
		if r < 0x20 || r == 0x7f {
			return "", errAt(path, ErrInvalid, fmt.Sprintf("%q contains a control character", n.Value))
		}
	}
	return n.Value, nil
}

// boolean accepts YAML booleans, including YAML 1.1's yes/no/on/off
// (which kubectl and PyYAML-era nmstate read as booleans), bare or quoted.
func boolean(n *yaml.Node, path string) (bool, error) {
	n = deref(n)
	if n.Kind == yaml.ScalarNode && (n.Tag == "!!bool" || n.Tag == "!!str") {
		switch strings.ToLower(n.Value) {
		case "true", "yes", "on", "y":
			return true, nil
		case "false", "no", "off", "n":
			return false, nil
		}
	}
	return false, errAt(path, ErrInvalid, fmt.Sprintf("expected true or false, got %q", n.Value))
}

// integer accepts a decimal integer, bare or quoted (nmstate takes "24"
// for 24), within lo..hi.
func integer(n *yaml.Node, path string, lo, hi int64) (int64, error) {
	n = deref(n)
	var v int64
	var err error
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag == "!!int":
		err = n.Decode(&v)
	case n.Kind == yaml.ScalarNode && n.Tag == "!!str":
		v, err = strconv.ParseInt(n.Value, 10, 64)
	default:
		return 0, errAt(path, ErrInvalid, fmt.Sprintf("expected an integer, got %q", n.Value))
	}
	if err != nil {
		return 0, errAt(path, ErrInvalid, fmt.Sprintf("expected an integer, got %q", n.Value))
	}
	if v < lo || v > hi {
		return 0, errAt(path, ErrInvalid, fmt.Sprintf("%d is out of range %d-%d", v, lo, hi))
	}
	return v, nil
}

func optBool(f fields, key string) (*bool, error) {
	it, ok := f.get(key)
	if !ok {
		return nil, nil
	}
	b, err := boolean(it.node, it.path)
	return &b, err
}

func optUint32(f fields, key string) (*int64, error) {
	it, ok := f.get(key)
	if !ok {
		return nil, nil
	}
	v, err := integer(it.node, it.path, 0, math.MaxUint32)
	return &v, err
}

// strings returns a list of strings.
func stringList(n *yaml.Node, path string) ([]string, error) {
	items, err := sequence(n, path)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(items))
	for i, it := range items {
		if out[i], err = str(it, indexPath(path, i)); err != nil {
			return nil, err
		}
	}
	return out, nil
}
