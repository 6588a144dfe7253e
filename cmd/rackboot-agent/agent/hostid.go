package agent

import (
	"crypto/md5"
	"io/fs"
	"slices"
	"strings"

	"github.com/rackboot/rackboot/cmd/rackboot-agent/protocol"
	"github.com/rackboot/rackboot/engine/models"
)

// FailureHostID is upstream's host id when nothing identifies the machine.
const FailureHostID = "deaddead-dead-dead-dead-deaddeaddead"

// Serial numbers and UUIDs firmware writes when it has none (compared in
// lower case), as upstream's agent lists them.
var (
	unknownSerials = []string{"", "unknown", "none", "default string", "not specified",
		"unspecified base board serial number", "unspecified system serial number"}
	unknownUUIDs = []string{"", "unknown", "00000000-0000-0000-0000-000000000000",
		"03000200-0400-0500-0006-000700080009"}
)

// HostID derives the host id the way upstream's agent does, from fsys
// rooted at "/":
//  1. the MD5 of the baseboard serial (/sys/class/dmi/id/board_serial),
//     formatted 8-4-4-4-12, unless it is a placeholder;
//  2. else the system UUID (/sys/class/dmi/id/product_uuid), lower-cased,
//     unless it is a placeholder;
//  3. else the MD5 of the lowest MAC address among ifaces;
//  4. else FailureHostID.
//
// The id is not an RFC 4122 UUID in cases 1 and 3, as upstream's is not.
func HostID(fsys fs.FS, ifaces []*models.Interface) string {
	if serial := readDMI(fsys, "board_serial"); !slices.Contains(unknownSerials, strings.ToLower(serial)) {
		return md5ID(serial)
	}
	if u := strings.ToLower(readDMI(fsys, "product_uuid")); protocol.ValidID(u) && !slices.Contains(unknownUUIDs, u) {
		return u
	}
	var macs []string
	for _, ifc := range ifaces {
		if ifc != nil && ifc.MacAddress != "" {
			macs = append(macs, ifc.MacAddress)
		}
	}
	if len(macs) > 0 {
		slices.Sort(macs)
		return md5ID(macs[0])
	}
	return FailureHostID
}

func readDMI(fsys fs.FS, name string) string {
	b, err := fs.ReadFile(fsys, "sys/class/dmi/id/"+name)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func md5ID(s string) string {
	return protocol.FormatUUID(md5.Sum([]byte(s)))
}
