package bmc

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// Kind is the driver family an address names. All of them speak Redfish;
// the kind picks defaults (Dell's system path) and vendor hints.
type Kind string

// Driver kinds.
const (
	KindRedfish Kind = "redfish"
	KindIDRAC   Kind = "idrac"
	KindILO5    Kind = "ilo5"
)

// BootMethod is how the machine is to boot the discovery image.
type BootMethod string

// Boot methods.
const (
	BootMethodPXE          BootMethod = "pxe"
	BootMethodVirtualMedia BootMethod = "virtualmedia"
	BootMethodUEFIHTTP     BootMethod = "uefihttp"
)

// schemeInfo is one accepted base scheme (without +http/+https).
type schemeInfo struct {
	name string
	kind Kind
	boot BootMethod
}

// baseSchemes is the metal3 list, in the order error messages show it.
func baseSchemes() []schemeInfo {
	return []schemeInfo{
		{"redfish", KindRedfish, BootMethodPXE},
		{"redfish-virtualmedia", KindRedfish, BootMethodVirtualMedia},
		{"redfish-uefihttp", KindRedfish, BootMethodUEFIHTTP},
		{"idrac-redfish", KindIDRAC, BootMethodPXE},
		{"idrac-virtualmedia", KindIDRAC, BootMethodVirtualMedia},
		{"ilo5-redfish", KindILO5, BootMethodPXE},
		{"ilo5-virtualmedia", KindILO5, BootMethodVirtualMedia},
	}
}

// AcceptedSchemes lists the base schemes ParseAddress accepts; each may be
// followed by "+http" or "+https" (https is the default).
func AcceptedSchemes() []string {
	var out []string
	for _, s := range baseSchemes() {
		out = append(out, s.name)
	}
	return out
}

// SystemsPrefix is where Redfish keeps computer systems.
const SystemsPrefix = "/redfish/v1/Systems/"

// Address is a parsed BMC address.
type Address struct {
	Kind Kind
	Boot BootMethod
	// Scheme is "https" or "http", the transport to the BMC.
	Scheme string
	// Host is host or host:port, IPv6 literals in brackets.
	Host string
	// SystemPath is the Redfish path of the machine, e.g.
	// /redfish/v1/Systems/1. Empty means "the only system the BMC has"
	// (plain redfish addresses without a path).
	SystemPath string
}

// Endpoint is the base URL of the Redfish service, e.g. https://10.0.0.5:443.
func (a Address) Endpoint() string { return a.Scheme + "://" + a.Host }

// BootDevice is the one-time boot device the address's boot method asks
// for: Pxe, Cd (virtual media) or UefiHttp (the firmware gets the URL from
// DHCP, which rackboot answers for HTTP-boot clients).
func (a Address) BootDevice() BootDevice {
	switch a.Boot {
	case BootMethodVirtualMedia:
		return BootCd
	case BootMethodUEFIHTTP:
		return BootUefiHTTP
	}
	return BootPxe
}

// String is the canonical form of the address.
func (a Address) String() string {
	name := ""
	for _, s := range baseSchemes() {
		if s.kind == a.Kind && s.boot == a.Boot {
			name = s.name
		}
	}
	return name + "+" + a.Scheme + "://" + a.Host + a.SystemPath
}

// ParseAddress parses a metal3 BMC address such as
// redfish-virtualmedia+https://10.0.0.5/redfish/v1/Systems/1. The host is
// required; credentials, queries and fragments are refused (credentials
// belong in the secret, and the refusal never echoes them). idrac addresses
// without a path get Dell's /redfish/v1/Systems/System.Embedded.1, ilo5 ones
// /redfish/v1/Systems/1.
func ParseAddress(s string) (Address, error) {
	a, err := parseAddress(s)
	if err != nil {
		return Address{}, fmt.Errorf("%w %q: %s; accepted schemes: %s (each optionally +http or +https)",
			ErrBadAddress, redactAddress(s), err, strings.Join(AcceptedSchemes(), ", "))
	}
	return a, nil
}

func parseAddress(s string) (Address, error) {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return Address{}, fmt.Errorf("no scheme")
	}
	a, err := parseScheme(strings.ToLower(scheme))
	if err != nil {
		return Address{}, err
	}
	if strings.ContainsAny(rest, "?#") {
		return Address{}, fmt.Errorf("query or fragment not allowed")
	}
	hostport, path, _ := strings.Cut(rest, "/")
	if strings.Contains(hostport, "@") {
		return Address{}, fmt.Errorf("credentials in the address are not allowed (put them in the secret)")
	}
	if a.Host, err = parseHost(hostport); err != nil {
		return Address{}, err
	}
	if a.SystemPath, err = parseSystemPath(path); err != nil {
		return Address{}, err
	}
	if a.SystemPath == "" {
		a.SystemPath = defaultSystemPath(a.Kind)
	}
	return a, nil
}

func parseScheme(scheme string) (Address, error) {
	base, transport, _ := strings.Cut(scheme, "+")
	a := Address{Scheme: "https"}
	switch transport {
	case "", "https":
	case "http":
		a.Scheme = "http"
	default:
		return Address{}, fmt.Errorf("unknown transport %q", redactText(transport))
	}
	for _, si := range baseSchemes() {
		if si.name == base {
			a.Kind, a.Boot = si.kind, si.boot
			return a, nil
		}
	}
	return Address{}, fmt.Errorf("unknown scheme %q", redactText(scheme))
}

func parseHost(hostport string) (string, error) {
	if hostport == "" {
		return "", fmt.Errorf("no host")
	}
	if strings.Count(hostport, ":") > 1 && !strings.HasPrefix(hostport, "[") {
		return "", fmt.Errorf("IPv6 host must be in brackets")
	}
	u, err := url.Parse("//" + hostport)
	if err != nil || u.Host != hostport {
		return "", fmt.Errorf("bad host %q", hostport)
	}
	host, port := u.Hostname(), u.Port()
	if strings.HasSuffix(hostport, ":") {
		return "", fmt.Errorf("empty port")
	}
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return "", fmt.Errorf("bad port %q", port)
		}
	}
	if ip := net.ParseIP(host); ip != nil {
		if ip.To4() == nil && !strings.HasPrefix(hostport, "[") {
			return "", fmt.Errorf("IPv6 host must be in brackets")
		}
		return hostport, nil
	}
	if strings.HasPrefix(hostport, "[") {
		return "", fmt.Errorf("bad IPv6 host %q", host)
	}
	if !validHostname(host) {
		return "", fmt.Errorf("bad host name %q", host)
	}
	return hostport, nil
}

// validHostname accepts DNS names: labels of letters, digits and hyphens
// (underscores tolerated), 1–63 characters, not starting or ending with '-'.
func validHostname(h string) bool {
	h = strings.TrimSuffix(h, ".")
	if h == "" || len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range label {
			if !isAlnum(c) && c != '-' && c != '_' {
				return false
			}
		}
	}
	return true
}

func parseSystemPath(path string) (string, error) {
	if path == "" {
		return "", nil
	}
	p := "/" + strings.TrimSuffix(path, "/")
	id, ok := strings.CutPrefix(p, SystemsPrefix)
	if !ok {
		return "", fmt.Errorf("path must be %s<id>", SystemsPrefix)
	}
	if id == "" || len(id) > 128 {
		return "", fmt.Errorf("empty or overlong system id")
	}
	for _, c := range id {
		if !isAlnum(c) && !strings.ContainsRune("._-", c) {
			return "", fmt.Errorf("bad character %q in system id", c)
		}
	}
	return p, nil
}

func isAlnum(c rune) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func defaultSystemPath(k Kind) string {
	switch k {
	case KindIDRAC:
		return SystemsPrefix + "System.Embedded.1"
	case KindILO5:
		return SystemsPrefix + "1"
	}
	return ""
}

// redactAddress removes anything between "://" and an "@" so a password
// typed into an address never reaches an error message.
func redactAddress(s string) string {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return redactText(s)
	}
	if i := strings.LastIndex(rest, "@"); i >= 0 {
		rest = "[redacted]@" + rest[i+1:]
	}
	return redactText(scheme) + "://" + rest
}

// redactText hides a userinfo-looking part of a string without "://"
// (e.g. "user:pass@host").
func redactText(s string) string {
	if i := strings.LastIndex(s, "@"); i >= 0 {
		return "[redacted]@" + s[i+1:]
	}
	return s
}
