package discovery

import (
	"encoding/json"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
)

// maxTokenLen bounds the agent token.
const maxTokenLen = 4096

// validate checks every field of in and names the first bad one.
func (in Input) validate() error {
	checks := []func() error{
		func() error { return checkServiceURL(in.ServiceURL) },
		func() error { return checkInfraEnvID(in.InfraEnvID) },
		func() error { return checkToken(in.AgentToken) },
		func() error { return checkPullSecret(in.PullSecret) },
		func() error { return checkSSHKeys(in.SSHAuthorizedKey) },
		func() error { return checkProxy(in.Proxy) },
		func() error { return checkNTP(in.NTPSources) },
		func() error { return checkAgent(in.Agent) },
	}
	for _, c := range checks {
		if err := c(); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalidInput, err)
		}
	}
	if in.MaxSize < 0 {
		return fmt.Errorf("%w: negative size limit %d", ErrInvalidInput, in.MaxSize)
	}
	return nil
}

func checkServiceURL(s string) error {
	u, err := url.Parse(s)
	switch {
	case s == "":
		return fmt.Errorf("service_url: empty")
	case err != nil || u.Host == "" || u.Opaque != "":
		return fmt.Errorf("service_url %q: not an absolute URL", s)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("service_url %q: scheme must be http or https", s)
	case u.User != nil:
		return fmt.Errorf("service_url: must not carry credentials")
	case u.RawQuery != "" || u.Fragment != "" || strings.ContainsAny(s, "?#"):
		return fmt.Errorf("service_url %q: must not have a query or fragment", s)
	case !urlChars(s):
		return fmt.Errorf("service_url %q: characters not allowed in a URL", s)
	}
	return nil
}

func checkInfraEnvID(s string) error {
	if s == "" || len(s) > 64 || strings.Trim(s, "0123456789abcdefABCDEF-") != "" {
		return fmt.Errorf("infra_env_id %q: want a UUID", s)
	}
	return nil
}

func checkToken(s string) error {
	if s == "" {
		return fmt.Errorf("agent token: empty")
	}
	if len(s) > maxTokenLen {
		return fmt.Errorf("agent token: longer than %d bytes", maxTokenLen)
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return fmt.Errorf("agent token: holds a space, control or non-ASCII character")
		}
	}
	return nil
}

func checkPullSecret(s string) error {
	if s == "" {
		return nil
	}
	var ps struct {
		Auths map[string]json.RawMessage `json:"auths"`
	}
	if err := json.Unmarshal([]byte(s), &ps); err != nil || ps.Auths == nil {
		return fmt.Errorf(`pull_secret: not a JSON object with an "auths" object`)
	}
	return nil
}

func checkProxy(p Proxy) error {
	if err := checkProxyURL("http_proxy", p.HTTPProxy, "http"); err != nil {
		return err
	}
	if err := checkProxyURL("https_proxy", p.HTTPSProxy, "http", "https"); err != nil {
		return err
	}
	return checkNoProxy(p.NoProxy)
}

// checkProxyURL accepts "" or scheme://[user:pass@]host[:port][/]. The
// error shows the URL only when it carries no credentials.
func checkProxyURL(field, s string, schemes ...string) error {
	if s == "" {
		return nil
	}
	shown := fmt.Sprintf("%q", s)
	if len(proxyUserinfo(s)) > 0 || strings.Contains(s, "@") {
		shown = "(with credentials)"
	}
	u, err := url.Parse(s)
	switch {
	case err != nil || u.Host == "" || u.Opaque != "" || !urlChars(s):
		return fmt.Errorf("%s %s: not a valid URL", field, shown)
	case !contains(schemes, u.Scheme):
		return fmt.Errorf("%s %s: scheme must be %s", field, shown, strings.Join(schemes, " or "))
	case u.Path != "" && u.Path != "/", u.RawQuery != "", u.Fragment != "", strings.ContainsAny(s, "?#"):
		return fmt.Errorf("%s %s: must be scheme://host[:port] only", field, shown)
	case checkHost(u.Hostname()) != nil:
		return fmt.Errorf("%s %s: bad host", field, shown)
	}
	return nil
}

// checkNoProxy accepts upstream's no_proxy: "*" or a comma-separated list
// of domain names (optionally with a leading "."), IP addresses and CIDRs.
func checkNoProxy(s string) error {
	if s == "" || s == "*" {
		return nil
	}
	for i, e := range strings.Split(s, ",") {
		d := strings.TrimPrefix(e, ".")
		if _, err := netip.ParsePrefix(e); err == nil {
			continue
		}
		if checkHost(d) != nil {
			return fmt.Errorf("no_proxy entry %d %q: want a domain, IP address or CIDR", i, e)
		}
	}
	return nil
}

func checkNTP(sources []string) error {
	for i, s := range sources {
		if checkHost(s) != nil {
			return fmt.Errorf("ntp_sources[%d] %q: want a host name or IP address", i, s)
		}
	}
	return nil
}

// checkHost accepts an IP address or an RFC 1123 host name.
func checkHost(s string) error {
	if net.ParseIP(s) != nil {
		return nil
	}
	if s == "" || len(s) > 253 {
		return fmt.Errorf("bad host name")
	}
	for _, label := range strings.Split(strings.TrimSuffix(s, "."), ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return fmt.Errorf("bad host name")
		}
		if strings.Trim(strings.ToLower(label), "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
			return fmt.Errorf("bad host name")
		}
	}
	return nil
}

// urlChars accepts only RFC 3986 characters (unreserved, reserved, "%"):
// no space, quote, backslash or control character can reach a file.
func urlChars(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' ||
			strings.IndexByte("-._~:/?#[]@!$&'()*+,;=%", c) >= 0
		if !ok {
			return false
		}
	}
	return true
}

// proxyUserinfo returns the credentials of a proxy URL, as written and
// decoded, whole and split, so that they can be scrubbed from errors.
func proxyUserinfo(s string) []string {
	var out []string
	if _, rest, ok := strings.Cut(s, "://"); ok {
		authority, _, _ := strings.Cut(rest, "/")
		if i := strings.LastIndex(authority, "@"); i >= 0 {
			user, pass, _ := strings.Cut(authority[:i], ":")
			out = append(out, authority[:i], user, pass)
		}
	}
	if u, err := url.Parse(s); err == nil && u.User != nil {
		out = append(out, u.User.Username())
		if p, ok := u.User.Password(); ok {
			out = append(out, p)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// checkAgent accepts no agent, or an http(s) URL like the service URL's
// and 128 lower-case hex digits.
func checkAgent(a *RemoteAgent) error {
	if a == nil {
		return nil
	}
	if err := checkServiceURL(a.URL); err != nil {
		return fmt.Errorf("agent %w", err)
	}
	if len(a.SHA512) != 128 || strings.Trim(a.SHA512, "0123456789abcdef") != "" {
		return fmt.Errorf("agent sha512 %q: want 128 lower-case hexadecimal digits", a.SHA512)
	}
	return nil
}
