package dhcp

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/rackboot/rackboot/ipxe"
)

// ErrConfig is wrapped by every error Config.Validate returns.
var ErrConfig = errors.New("dhcp: invalid config")

// Mode selects how the server answers.
type Mode int

const (
	// ModeFull hands out addresses and boot information.
	ModeFull Mode = iota
	// ModeProxy answers netboot clients with boot information only.
	ModeProxy
)

// String returns "full" or "proxy".
func (m Mode) String() string {
	switch m {
	case ModeFull:
		return "full"
	case ModeProxy:
		return "proxy"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// ParseMode parses "full" or "proxy".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "full":
		return ModeFull, nil
	case "proxy":
		return ModeProxy, nil
	}
	return 0, fmt.Errorf("%w: mode %q is neither \"full\" nor \"proxy\"", ErrConfig, s)
}

// Defaults used when the matching Config field is zero.
const (
	DefaultLeaseTime     = time.Hour
	DefaultDeclineTime   = 10 * time.Minute
	DefaultBootfileBIOS  = "undionly.kpxe"
	DefaultBootfileUEFI  = "ipxe.efi"
	DefaultBootfileARM64 = "snp.efi"
	offerHold            = time.Minute
)

// Range is an inclusive range of addresses handed out dynamically.
type Range struct {
	Start, End netip.Addr
}

// Contains reports whether ip lies within the range.
func (r Range) Contains(ip netip.Addr) bool {
	return r.Start.Compare(ip) <= 0 && ip.Compare(r.End) <= 0
}

// Reservation pins a MAC to an address and, optionally, a host name
// (option 12).
type Reservation struct {
	MAC      net.HardwareAddr
	IP       netip.Addr
	Hostname string
}

// Config is the server configuration. Its zero value (plus ServerIP and, in
// full mode, Subnet) is usable: full mode, one-hour leases, default bootfile
// names.
type Config struct {
	Mode Mode
	// ServerIP is the address clients reach us on: option 54, siaddr,
	// option 66.
	ServerIP netip.Addr
	// Subnet is the served subnet (full mode). A relayed request is only
	// answered when Subnet contains its giaddr.
	Subnet       netip.Prefix
	Ranges       []Range
	Router       netip.Addr   // option 3, omitted when invalid
	DNS          []netip.Addr // option 6
	DomainName   string       // option 15, omitted when empty
	LeaseTime    time.Duration
	DeclineTime  time.Duration // how long a DECLINEd address stays unused
	Reservations []Reservation
	// HTTPBase is the base URL of the HTTP boot service, e.g.
	// "http://10.99.0.1:8080" (no trailing slash). Without it iPXE and
	// HTTP-boot clients get no boot information.
	HTTPBase      string
	BootfileBIOS  string // default undionly.kpxe
	BootfileUEFI  string // default ipxe.efi
	BootfileARM64 string // default snp.efi
}

// withDefaults returns c with zero fields replaced by their defaults.
func (c Config) withDefaults() Config {
	if c.LeaseTime == 0 {
		c.LeaseTime = DefaultLeaseTime
	}
	if c.DeclineTime == 0 {
		c.DeclineTime = DefaultDeclineTime
	}
	if c.BootfileBIOS == "" {
		c.BootfileBIOS = DefaultBootfileBIOS
	}
	if c.BootfileUEFI == "" {
		c.BootfileUEFI = DefaultBootfileUEFI
	}
	if c.BootfileARM64 == "" {
		c.BootfileARM64 = DefaultBootfileARM64
	}
	c.HTTPBase = strings.TrimSuffix(c.HTTPBase, "/")
	return c
}

// Validate reports the first problem in c, wrapping ErrConfig.
func (c Config) Validate() error {
	if c.Mode != ModeFull && c.Mode != ModeProxy {
		return fmt.Errorf("%w: unknown mode %d", ErrConfig, int(c.Mode))
	}
	if !c.ServerIP.Is4() {
		return fmt.Errorf("%w: server address %v is not an IPv4 address", ErrConfig, c.ServerIP)
	}
	if c.LeaseTime < 0 || c.DeclineTime < 0 {
		return fmt.Errorf("%w: lease and decline times must not be negative", ErrConfig)
	}
	if err := checkHTTPBase(c.HTTPBase); err != nil {
		return err
	}
	for _, f := range []string{c.BootfileBIOS, c.BootfileUEFI, c.BootfileARM64} {
		if len(f) > 127 || strings.ContainsAny(f, "\x00\n") {
			return fmt.Errorf("%w: bootfile name %q is too long or has control characters", ErrConfig, f)
		}
	}
	if c.Mode == ModeProxy {
		return nil
	}
	return c.validateFull()
}

func checkHTTPBase(base string) error {
	if base == "" {
		return nil
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%w: http base %q is not an http(s) URL", ErrConfig, base)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("%w: http base %q must not carry a query or fragment", ErrConfig, base)
	}
	return nil
}

func (c Config) validateFull() error {
	p := c.Subnet
	if !p.IsValid() || !p.Addr().Is4() {
		return fmt.Errorf("%w: full mode needs an IPv4 subnet", ErrConfig)
	}
	if p.Masked() != p {
		return fmt.Errorf("%w: subnet %v has host bits set (did you mean %v?)", ErrConfig, p, p.Masked())
	}
	if c.Router.IsValid() && !p.Contains(c.Router) {
		return fmt.Errorf("%w: router %v is outside subnet %v", ErrConfig, c.Router, p)
	}
	for _, d := range c.DNS {
		if !d.Is4() {
			return fmt.Errorf("%w: DNS server %v is not an IPv4 address", ErrConfig, d)
		}
	}
	if err := checkRanges(p, c.Ranges); err != nil {
		return err
	}
	return checkReservations(p, c.Reservations)
}

func checkRanges(p netip.Prefix, rs []Range) error {
	for i, r := range rs {
		if !p.Contains(r.Start) || !p.Contains(r.End) {
			return fmt.Errorf("%w: range %v-%v is not inside subnet %v", ErrConfig, r.Start, r.End, p)
		}
		if r.End.Less(r.Start) {
			return fmt.Errorf("%w: range %v-%v ends before it starts", ErrConfig, r.Start, r.End)
		}
		for _, o := range rs[:i] {
			if r.Start.Compare(o.End) <= 0 && o.Start.Compare(r.End) <= 0 {
				return fmt.Errorf("%w: range %v-%v overlaps range %v-%v", ErrConfig, r.Start, r.End, o.Start, o.End)
			}
		}
	}
	return nil
}

func checkReservations(p netip.Prefix, rs []Reservation) error {
	macs := make(map[string]bool, len(rs))
	ips := make(map[netip.Addr]bool, len(rs))
	for _, r := range rs {
		if len(r.MAC) != 6 {
			return fmt.Errorf("%w: reservation MAC %q is not a 6-byte Ethernet address", ErrConfig, r.MAC)
		}
		if !p.Contains(r.IP) {
			return fmt.Errorf("%w: reservation %v for %v is outside subnet %v", ErrConfig, r.IP, r.MAC, p)
		}
		if r.Hostname != "" {
			if err := ipxe.CheckHostname(r.Hostname); err != nil {
				return fmt.Errorf("%w: reservation for %v: %w", ErrConfig, r.MAC, err)
			}
		}
		if macs[string(r.MAC)] {
			return fmt.Errorf("%w: MAC %v is reserved twice", ErrConfig, r.MAC)
		}
		if ips[r.IP] {
			return fmt.Errorf("%w: address %v is reserved twice", ErrConfig, r.IP)
		}
		macs[string(r.MAC)], ips[r.IP] = true, true
	}
	return nil
}
