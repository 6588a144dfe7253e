package config

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/rackboot/rackboot/engine/validation"
)

// DefaultPath is where the package installs the configuration file.
const DefaultPath = "/etc/rackboot/rackboot.toml"

// Mode is how the DHCP server answers.
type Mode string

// The DHCP modes.
const (
	ModeOff   Mode = "off"   // no DHCP server
	ModeFull  Mode = "full"  // addresses and boot information
	ModeProxy Mode = "proxy" // boot information only, next to another DHCP server
)

// Config is a validated configuration. Paths in it are absolute.
type Config struct {
	File     string // the file it was read from
	Server   Server
	DHCP     DHCP
	TFTP     TFTP
	Profiles []Profile
	Engine   Engine
	API      API
	// ImageSets are the file's [[image_set]] tables, in file order.
	ImageSets []ImageSet
	// Cluster is [cluster]; nil for a lone appliance (check_cluster.go).
	Cluster *Cluster

	ix *index // where each key is, for ErrorAt
}

// Server holds the daemon-wide settings.
type Server struct {
	DataDir    string
	Advertise  netip.Addr // the IPv4 address hosts use to reach this appliance
	HTTPListen string     // host:port
	// PprofListen is a loopback host:port serving Go's /debug/pprof
	// profiles ("": off).
	PprofListen string
	LogLevel    slog.Level
	LogFormat   string // "text" or "json"
	// AgentDir holds rackboot-agent for each Go architecture,
	// <agent_dir>/<goarch>/rackboot-agent, as `make build` lays out
	// bin/agent/; Agents are those found, read when a CoreOS image set
	// needs them (its hosts fetch the agent through Ignition).
	AgentDir string
	Agents   map[string]Agent
}

// Agent is a rackboot-agent binary and its hex sha512.
type Agent struct {
	Path   string
	SHA512 string
}

// DHCP configures the DHCPv4 server.
type DHCP struct {
	Mode         Mode
	Interfaces   []string     // empty: every interface
	Subnet       netip.Prefix // not valid when unset (proxy and off modes)
	Ranges       []Range      // sorted, not overlapping
	Router       netip.Addr   // not valid when unset
	DNS          []netip.Addr
	Domain       string
	LeaseTime    time.Duration
	Reservations []Reservation
}

// Range is an inclusive range of addresses handed out dynamically.
type Range struct {
	Start, End netip.Addr
}

// Contains reports whether a lies in r.
func (r Range) Contains(a netip.Addr) bool {
	return r.Start.Compare(a) <= 0 && a.Compare(r.End) <= 0
}

func (r Range) String() string { return r.Start.String() + "-" + r.End.String() }

// Reservation gives one MAC a fixed address and, optionally, a hostname.
type Reservation struct {
	MAC      net.HardwareAddr
	IP       netip.Addr // not valid when unset (proxy and off modes)
	Hostname string
	InfraEnv string // the infra-env (name or id) this MAC boots; "" when unset
}

// Engine configures the discovery engine: what strangers boot, the
// hardware minimums and the host monitor.
type Engine struct {
	DefaultInfraEnv string // name or id; "" when unset
	DefaultProfile  string // a Profiles name; "" when unset
	// Thresholds are upstream's minimums with the file's overrides.
	Thresholds      validation.Thresholds
	MonitorInterval time.Duration
	// InstallTimeout is how long an installation may take before its
	// cluster goes to error (upstream's 20 minutes by default).
	InstallTimeout time.Duration
}

// API configures the assisted-installer API served on http_listen.
type API struct {
	// AdminRemote lets the admin token be used from non-loopback peers.
	AdminRemote bool
}

// TFTP configures the TFTP server.
type TFTP struct {
	Enabled bool
	Listen  string // host:port
	Root    string // directory served, read-only
	// MaxTransfersPerClient caps one client address's concurrent
	// transfers (0: the tftp package's default, 8).
	MaxTransfersPerClient int
}

// Profile is what a booting machine gets.
type Profile struct {
	Name     string
	Kernel   string
	Initrd   string
	Cmdline  string
	Ignition string             // "" when the profile has none
	MACs     []net.HardwareAddr // empty: the default profile for every MAC
}

// BaseURL is the URL hosts use for the HTTP boot service, without a
// trailing slash: http://<advertise>:<port of http_listen>.
func (c *Config) BaseURL() string {
	_, port, _ := net.SplitHostPort(c.Server.HTTPListen)
	return "http://" + net.JoinHostPort(c.Server.Advertise.String(), port)
}

// ErrorAt makes an Error about the value at key, for a problem found after
// loading (an Ignition file that does not validate, say). key is a path such
// as "profile[1].ignition" or "dhcp.reservation[0].hostname"; the indices
// are those of Profiles and DHCP.Reservations, which follow the file. A key
// the file does not set points at its nearest enclosing table.
func (c *Config) ErrorAt(key, format string, args ...any) *Error {
	p := Pos{Line: 1, Col: 1}
	if c.ix != nil {
		p = c.ix.val(key)
	}
	return &Error{File: c.File, Pos: p, Msg: fmt.Sprintf(format, args...)}
}

// Load reads and validates the configuration file at path.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read configuration: %w", err)
	}
	return Parse(path, data, "/")
}

// Parse validates data, read from the file name. Relative paths in it are
// taken from name's directory. Absolute paths are looked up under root: "/"
// on a real system; a test's temporary directory can stand in for it. On
// failure the error is an Errors holding every problem found.
func Parse(name string, data []byte, root string) (*Config, error) {
	r := &report{file: name}
	ix, typeErrs, syntaxOK := scan(r, data, reflect.TypeFor[file]())
	if !syntaxOK || typeErrs > 0 {
		if !syntaxOK {
			r.errs = nil
			decodeError(r, data)
		}
		return nil, r.err()
	}
	var f file
	if !decodeError(r, data, &f) {
		return nil, r.err()
	}
	dir, err := filepath.Abs(filepath.Dir(name))
	if err != nil {
		return nil, fmt.Errorf("configuration directory: %w", err)
	}
	c := &checker{r: r, ix: ix, dir: dir, root: root, cfg: &Config{File: name, ix: ix}}
	c.check(&f)
	if err := r.err(); err != nil {
		return nil, err
	}
	return c.cfg, nil
}

// decodeError decodes data into v (when given) with go-toml and reports
// what go-toml finds that the scanner does not: syntax errors and keys
// defined twice. It reports whether decoding succeeded.
func decodeError(r *report, data []byte, v ...any) bool {
	var target any = &file{}
	if len(v) > 0 {
		target = v[0]
	}
	err := toml.NewDecoder(bytes.NewReader(data)).Decode(target)
	if err == nil {
		return true
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, col := de.Position()
		r.add(Pos{Line: line, Col: col}, "%s", strings.TrimPrefix(de.Error(), "toml: "))
		return false
	}
	r.add(Pos{Line: 1, Col: 1}, "%s", strings.TrimPrefix(err.Error(), "toml: "))
	return false
}
