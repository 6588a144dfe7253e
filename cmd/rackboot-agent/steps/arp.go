package steps

import (
	"fmt"
	"net/netip"
	"os"
	"strconv"
	"strings"
)

// Neighbor is one complete entry of the kernel's ARP table.
type Neighbor struct {
	IP     netip.Addr
	MAC    string // lower-case aa:bb:cc:dd:ee:ff
	Device string
}

// arpComplete is ATF_COM: the entry has a resolved hardware address.
const arpComplete = 0x2

// ParseARPTable reads /proc/net/arp ("IP address HW type Flags HW address
// Mask Device") and returns its complete entries. Malformed lines are an
// error; incomplete entries are skipped.
func ParseARPTable(b []byte) ([]Neighbor, error) {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "IP address") {
		return nil, fmt.Errorf("%w: arp table has no header", ErrParse)
	}
	var out []Neighbor
	for i, line := range lines[1:] {
		f := strings.Fields(line)
		if len(f) != 6 {
			return nil, fmt.Errorf("%w: arp table line %d has %d fields", ErrParse, i+2, len(f))
		}
		ip, err := netip.ParseAddr(f[0])
		if err != nil || !ip.Is4() {
			return nil, fmt.Errorf("%w: arp table line %d: bad address %q", ErrParse, i+2, f[0])
		}
		flags, err := strconv.ParseUint(strings.TrimPrefix(f[2], "0x"), 16, 32)
		if err != nil {
			return nil, fmt.Errorf("%w: arp table line %d: bad flags %q", ErrParse, i+2, f[2])
		}
		if flags&arpComplete == 0 {
			continue
		}
		out = append(out, Neighbor{IP: ip, MAC: strings.ToLower(f[3]), Device: f[5]})
	}
	return out, nil
}

func (d Deps) neighbors() ([]Neighbor, error) {
	path := d.ARPTable
	if path == "" {
		path = "/proc/thread-self/net/arp"
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("steps: arp table: %w", err)
	}
	return ParseARPTable(b)
}
