package nmstate

import (
	"errors"
	"fmt"
	"net"
	"path"
	"sort"
	"strings"
)

// ErrNoHost is returned by SelectHost when no host directory names any of
// the machine's MACs.
var ErrNoHost = errors.New("nmstate: no host directory matches this machine's MACs")

// renamedKeys are the keyfile keys, by section, whose values name
// interfaces.
var renamedKeys = map[string]map[string]bool{
	"connection": {"id": true, "interface-name": true, "master": true},
	"vlan":       {"parent": true},
	"bond":       {"primary": true},
}

// SelectHost does on the booting machine what upstream's
// pre-network-manager-config.sh does: among files laid out as ConvertHosts
// writes them ("host<i>/…"), it picks the first directory (in name order)
// whose mac_interface.ini names a MAC the machine has, and returns that
// directory's keyfiles with every logical interface name replaced by the
// machine's name for that MAC — in file names and in id, interface-name,
// master, parent and the bond option primary, including VLAN names built on them ("eth0.5"). All
// names are replaced at once, so swapping two names works. nics maps the
// machine's MACs (any case, ':' or '-') to its kernel interface names.
func SelectHost(files []File, nics map[string]string) (string, []File, error) {
	real := map[string]string{}
	for mac, name := range nics {
		hw, err := net.ParseMAC(mac)
		if err != nil {
			return "", nil, fmt.Errorf("nmstate: machine MAC %q: %w", mac, err)
		}
		real[hw.String()] = name
	}
	dirs := map[string][]File{}
	for _, f := range files {
		dir, name := path.Split(f.Name)
		dir = strings.TrimSuffix(dir, "/")
		dirs[dir] = append(dirs[dir], File{Name: name, Data: f.Data})
	}
	names := make([]string, 0, len(dirs))
	for d := range dirs {
		names = append(names, d)
	}
	sort.Strings(names)
	for _, d := range names {
		if rename, ok := matchHost(dirs[d], real); ok {
			return d, renameFiles(dirs[d], rename), nil
		}
	}
	return "", nil, ErrNoHost
}

// matchHost reads a directory's MAC map; it matches when one of its MACs is
// the machine's, and then yields logical name → machine name.
func matchHost(files []File, real map[string]string) (map[string]string, bool) {
	ini := fileData(files, MACInterfaceFile)
	if ini == nil {
		return nil, false
	}
	rename, match := map[string]string{}, false
	for _, line := range strings.Split(string(ini), "\n") {
		mac, logical, ok := strings.Cut(strings.TrimSpace(line), "=")
		hw, err := net.ParseMAC(mac)
		if !ok || err != nil {
			continue
		}
		if name, ok := real[hw.String()]; ok {
			rename[logical], match = name, true
		}
	}
	return rename, match
}

func renameFiles(files []File, rename map[string]string) []File {
	var out []File
	for _, f := range files {
		base, ok := strings.CutSuffix(f.Name, ".nmconnection")
		if !ok {
			continue
		}
		out = append(out, File{Name: renameIface(base, rename) + ".nmconnection", Data: renameKeyfile(f.Data, rename)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func renameKeyfile(data []byte, rename map[string]string) []byte {
	lines := strings.Split(string(data), "\n")
	section := ""
	for i, line := range lines {
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			section = line[1 : len(line)-1]
		} else if k, v, ok := strings.Cut(line, "="); ok && renamedKeys[section][k] {
			lines[i] = k + "=" + renameIface(v, rename)
		}
	}
	return []byte(strings.Join(lines, "\n"))
}

// renameIface maps "eth0" and "eth0.<anything>" through rename.
func renameIface(name string, rename map[string]string) string {
	if r, ok := rename[name]; ok {
		return r
	}
	if base, rest, ok := strings.Cut(name, "."); ok {
		if r, ok := rename[base]; ok {
			return r + "." + rest
		}
	}
	return name
}

func fileData(files []File, name string) []byte {
	for _, f := range files {
		if f.Name == name {
			return f.Data
		}
	}
	return nil
}
