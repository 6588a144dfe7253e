package installer

import (
	"fmt"
	"net/url"
	"path"
	"sort"
	"strings"

	v35 "github.com/coreos/ignition/v2/config/v3_5"
	"github.com/coreos/ignition/v2/config/v3_5/types"

	"github.com/rackboot/rackboot/boot/ignition"
	"github.com/rackboot/rackboot/boot/redact"
	"github.com/rackboot/rackboot/ipxe"
)

// maxTokenLen bounds the first-boot token.
const maxTokenLen = 4096

// FirstBoot is how the installed system reports Done: PUT ProgressURL
// (.../infra-envs/{ie}/hosts/{id}/progress) with Token in X-Secret-Key.
type FirstBoot struct {
	ProgressURL, Token string
}

// HostParams is what HostIgnition adds to a role config.
type HostParams struct {
	Hostname string
	// NetworkKeyfiles maps absolute paths on the installed system (e.g.
	// /etc/NetworkManager/system-connections/eth0.nmconnection) to their
	// contents, written mode 0600.
	NetworkKeyfiles map[string][]byte
	// IgnitionOverride is the host's ignition_config_overrides (spec
	// 3.0–3.5), merged last so it can replace anything.
	IgnitionOverride string
	FirstBoot        FirstBoot
}

// file is one file HostIgnition writes.
type file struct {
	path string
	mode int
	data string
}

// HostIgnition returns one host's install Ignition (spec 3.5.0 JSON): role
// (spec 3.0–3.5) merged with the host part — /etc/hostname (0644), each
// network keyfile (0600), the first-boot token (0600), script (0755) and
// enabled unit — and then with p.IgnitionOverride. The same inputs give the
// same bytes. Errors wrap ErrInvalidInput, ErrRoleConfig or
// ErrInvalidOverride and never contain the token.
func HostIgnition(role []byte, p HostParams) ([]byte, error) {
	raw, err := hostIgnition(role, p)
	if err != nil {
		return nil, redact.Error(err, []string{p.FirstBoot.Token})
	}
	return raw, nil
}

func hostIgnition(role []byte, p HostParams) ([]byte, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	base, err := parse(role)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRoleConfig, err)
	}
	override, err := parseOverride(p.IgnitionOverride)
	if err != nil {
		return nil, err
	}
	host := v35.Merge(base, hostPart(p))
	raw, err := encode(v35.Merge(host, override))
	if err == nil {
		return raw, nil
	}
	if _, herr := encode(host); herr != nil { // the role config is at fault
		return nil, fmt.Errorf("%w: once merged with the host's files: %w", ErrRoleConfig, herr)
	}
	return nil, fmt.Errorf("%w: once merged with the host's config: %w", ErrInvalidOverride, err)
}

// validate checks every field of p and names the first bad one.
func (p HostParams) validate() error {
	if err := ipxe.CheckHostname(p.Hostname); err != nil {
		return fmt.Errorf("%w: hostname: %w", ErrInvalidInput, err)
	}
	for name := range p.NetworkKeyfiles {
		if err := checkKeyfilePath(name); err != nil {
			return fmt.Errorf("%w: network keyfile %q: %w", ErrInvalidInput, name, err)
		}
	}
	if err := checkProgressURL(p.FirstBoot.ProgressURL); err != nil {
		return fmt.Errorf("%w: first boot progress URL: %w", ErrInvalidInput, err)
	}
	if err := checkToken(p.FirstBoot.Token); err != nil {
		return fmt.Errorf("%w: first boot token: %w", ErrInvalidInput, err)
	}
	return nil
}

// checkKeyfilePath accepts a clean absolute path that is not one of the
// files HostIgnition writes itself.
func checkKeyfilePath(p string) error {
	switch {
	case !strings.HasPrefix(p, "/") || path.Clean(p) != p || p == "/":
		return fmt.Errorf("not a clean absolute file path")
	case strings.ContainsAny(p, "\x00\n"):
		return fmt.Errorf("holds a NUL or newline")
	case p == HostnamePath || p == FirstBootScript || p == FirstBootTokenPath:
		return fmt.Errorf("rackboot writes that file itself")
	}
	return nil
}

// checkProgressURL accepts an absolute http(s) URL without credentials
// whose characters are RFC 3986's, except "'" (the script single-quotes it).
func checkProgressURL(s string) error {
	u, err := url.Parse(s)
	switch {
	case s == "":
		return fmt.Errorf("empty")
	case err != nil || u.Host == "" || u.Opaque != "":
		return fmt.Errorf("%q: not an absolute URL", s)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("%q: scheme must be http or https", s)
	case u.User != nil:
		return fmt.Errorf("must not carry credentials")
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' ||
			strings.IndexByte("-._~:/?#[]@!$&()*+,;=%", c) >= 0
		if !ok {
			return fmt.Errorf("%q: character %q not allowed", s, c)
		}
	}
	return nil
}

func checkToken(s string) error {
	if s == "" {
		return fmt.Errorf("empty")
	}
	if len(s) > maxTokenLen {
		return fmt.Errorf("longer than %d bytes", maxTokenLen)
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return fmt.Errorf("holds a space, control or non-ASCII character")
		}
	}
	return nil
}

// hostPart is the per-host config merged over the role config.
func hostPart(p HostParams) types.Config {
	files := []file{
		{HostnamePath, 0o644, p.Hostname + "\n"},
		{FirstBootTokenPath, 0o600, p.FirstBoot.Token},
		{FirstBootScript, 0o755, firstBootScript(p.FirstBoot.ProgressURL)},
	}
	names := make([]string, 0, len(p.NetworkKeyfiles))
	for name := range p.NetworkKeyfiles {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		files = append(files, file{name, 0o600, string(p.NetworkKeyfiles[name])})
	}
	cfg := types.Config{Ignition: types.Ignition{Version: ignition.Version}}
	for _, f := range files {
		cfg.Storage.Files = append(cfg.Storage.Files, ignFile(f))
	}
	enabled := true
	unit := firstBootUnit
	cfg.Systemd.Units = []types.Unit{{Name: FirstBootUnit, Enabled: &enabled, Contents: &unit}}
	return cfg
}

// ignFile is f as an Ignition file entry: overwritten, root-owned, its
// contents a percent-encoded data URL.
func ignFile(f file) types.File {
	overwrite := true
	mode := f.mode
	source := "data:," + url.PathEscape(f.data)
	return types.File{
		Node: types.Node{Path: f.path, Overwrite: &overwrite},
		FileEmbedded1: types.FileEmbedded1{
			Mode:     &mode,
			Contents: types.Resource{Source: &source},
		},
	}
}
