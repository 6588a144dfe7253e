package nmstate

import (
	"fmt"
	"net"
	"path"
	"strings"
)

// keyfileShape is a small independent INI reader used by the tests and
// the fuzz target to check generated files.
func keyfileShape(f File) error {
	base := path.Base(f.Name)
	text := string(f.Data)
	if text != "" && !strings.HasSuffix(text, "\n") {
		return fmt.Errorf("does not end with a newline")
	}
	if base == MACInterfaceFile {
		for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			mac, name, ok := strings.Cut(line, "=")
			if _, err := net.ParseMAC(mac); line != "" && (!ok || err != nil || name == "") {
				return fmt.Errorf("bad line %q", line)
			}
		}
		return nil
	}
	id := strings.TrimSuffix(base, ".nmconnection")
	sections := map[string]map[string]string{}
	var cur map[string]string
	var order []string
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		switch {
		case line == "":
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			name := line[1 : len(line)-1]
			if sections[name] != nil {
				return fmt.Errorf("section [%s] twice", name)
			}
			cur = map[string]string{}
			sections[name] = cur
			order = append(order, name)
		default:
			k, v, ok := strings.Cut(line, "=")
			if !ok || cur == nil || k == "" {
				return fmt.Errorf("bad line %q", line)
			}
			if _, dup := cur[k]; dup {
				return fmt.Errorf("key %s twice", k)
			}
			cur[k] = v
		}
	}
	if len(order) == 0 || order[0] != "connection" {
		return fmt.Errorf("[connection] is not first: %v", order)
	}
	c := sections["connection"]
	if c["id"] != id || c["interface-name"] != id || c["uuid"] == "" || c["type"] == "" {
		return fmt.Errorf("[connection] id/interface-name/uuid/type wrong: %v", c)
	}
	return nil
}
