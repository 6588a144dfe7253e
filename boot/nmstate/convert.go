package nmstate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

const (
	// MACInterfaceFile is the name of the MAC map written next to the
	// keyfiles: one "mac=logical-name" line per NIC, sorted.
	MACInterfaceFile = "mac_interface.ini"
	// NetworkDir is where upstream's discovery image expects the per-host
	// directories (host0, host1, …).
	NetworkDir = "/etc/assisted/network"
	// FileMode is the mode the files must have on the host: NetworkManager
	// ignores keyfiles readable by others.
	FileMode = 0o600
	// MaxDocumentSize bounds one NMState document.
	MaxDocumentSize = 1 << 20
)

// File is one generated file; Name is relative (a file name, or
// "host<i>/<file>" from ConvertHosts).
type File struct {
	Name string
	Data []byte
}

// Convert turns one host's NMState YAML (or JSON) into NetworkManager
// keyfiles, one "<interface>.nmconnection" per interface not absent, plus
// MACInterfaceFile built from nics. Files are sorted by name. Errors are
// *Error values naming the key path; those about nics name "nics[i].name"
// or "nics[i].macAddress".
func Convert(nmstateYAML []byte, nics []NIC) ([]File, error) {
	entries, err := checkNICs(nics, "nics", "name", "macAddress")
	if err != nil {
		return nil, err
	}
	root, err := decode(nmstateYAML)
	if err != nil {
		return nil, err
	}
	return convertNode(root, "", entries)
}

func convertNode(root *yaml.Node, base string, nics []nicEntry) ([]File, error) {
	st, err := parseState(root, base)
	if err != nil {
		return nil, err
	}
	if err := st.link(nics); err != nil {
		return nil, err
	}
	kfs, err := st.render()
	if err != nil {
		return nil, err
	}
	if len(kfs) == 0 {
		return nil, errAt(childPath(base, "interfaces"), ErrMissing, "no interface to configure")
	}
	files := make([]File, 0, len(kfs)+1)
	for name, kf := range kfs {
		files = append(files, File{Name: name + ".nmconnection", Data: kf.bytes()})
	}
	files = append(files, File{Name: MACInterfaceFile, Data: macInterfaceINI(nics)})
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	return files, nil
}

func macInterfaceINI(nics []nicEntry) []byte {
	lines := make([]string, len(nics))
	for i, n := range nics {
		lines[i] = strings.ToLower(n.mac.String()) + "=" + n.name + "\n"
	}
	sort.Strings(lines)
	return []byte(strings.Join(lines, ""))
}

// decode parses exactly one YAML document into its root node.
func decode(data []byte) (root *yaml.Node, err error) {
	if len(data) > MaxDocumentSize {
		return nil, errAt("", ErrInvalid, fmt.Sprintf("document is %d bytes, more than the limit of %d", len(data), MaxDocumentSize))
	}
	defer func() {
		if r := recover(); r != nil { // the YAML library must not take the caller down
			root, err = nil, errAt("", ErrSyntax, fmt.Sprint(r))
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errAt("", ErrMissing, "empty document")
		}
		return nil, errAt("", ErrSyntax, err.Error())
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, errAt("", ErrSyntax, "more than one YAML document")
	}
	if len(doc.Content) != 1 || isNull(doc.Content[0]) {
		return nil, errAt("", ErrMissing, "empty document")
	}
	if n := expandedSize(doc.Content[0], map[*yaml.Node]int{}); n > maxNodes {
		return nil, errAt("", ErrInvalid, fmt.Sprintf("document expands to more than %d nodes (aliases)", maxNodes))
	}
	return doc.Content[0], nil
}

// maxNodes bounds the size of a document with its aliases expanded, so a
// few anchors cannot make the walk over it quadratic or worse.
const maxNodes = 1 << 17

// expandedSize counts the nodes under n with aliases followed, saturating
// above maxNodes; memo makes it linear in the document.
func expandedSize(n *yaml.Node, memo map[*yaml.Node]int) int {
	if n == nil {
		return 0
	}
	if v, ok := memo[n]; ok {
		return v
	}
	memo[n] = maxNodes + 1 // a cycle counts as too big
	size := 1
	if n.Kind == yaml.AliasNode {
		size += expandedSize(n.Alias, memo)
	}
	for _, c := range n.Content {
		if size += expandedSize(c, memo); size > maxNodes {
			size = maxNodes + 1
			break
		}
	}
	memo[n] = size
	return size
}
