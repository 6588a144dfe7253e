package discovery

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"sort"

	v35 "github.com/coreos/ignition/v2/config/v3_5"
	"github.com/coreos/ignition/v2/config/v3_5/types"

	"github.com/rackboot/rackboot/boot/ignition"
	"github.com/rackboot/rackboot/boot/nmstate"
	"github.com/rackboot/rackboot/boot/redact"
)

// file is one file of the discovery config.
type file struct {
	path string
	mode int
	data []byte
}

// Build returns the discovery Ignition config of in (see the package
// documentation for what it holds). The same Input gives the same bytes.
// Errors wrap ErrInvalidInput, ErrInvalidOverride or ErrTooLarge and
// never contain a secret of in.
func Build(in Input) ([]byte, error) {
	raw, err := build(in)
	if err != nil {
		return nil, redact.Error(err, in.secrets())
	}
	return raw, nil
}

func build(in Input) ([]byte, error) {
	if err := in.validate(); err != nil {
		return nil, err
	}
	limit := in.MaxSize
	if limit == 0 {
		limit = DefaultMaxSize
	}
	if len(in.IgnitionOverride) > limit {
		return nil, fmt.Errorf("%w: ignition_config_override is %d bytes, over the %d-byte limit",
			ErrTooLarge, len(in.IgnitionOverride), limit)
	}
	override, err := parseOverride(in.IgnitionOverride)
	if err != nil {
		return nil, err
	}
	base, err := baseConfig(in)
	if err != nil {
		return nil, err
	}
	merged := v35.Merge(base, override)
	merged.Ignition.Version = ignition.Version
	raw, err := json.Marshal(merged)
	if err != nil {
		return nil, fmt.Errorf("encoding discovery Ignition: %w", err)
	}
	if _, err := ignition.Parse(raw); err != nil {
		return nil, fmt.Errorf("%w: once merged with the discovery config: %w", ErrInvalidOverride, err)
	}
	if len(raw) > limit {
		return nil, fmt.Errorf("%w: %d bytes, over the %d-byte limit (the ISO's Ignition embed area unless configured)",
			ErrTooLarge, len(raw), limit)
	}
	return raw, nil
}

// parseOverride parses the user's override (any spec 3.0–3.5) with
// Ignition's parser; the error carries the parser's message.
func parseOverride(s string) (types.Config, error) {
	if s == "" {
		return types.Config{}, nil
	}
	c, err := ignition.Parse([]byte(s))
	if err != nil {
		return types.Config{}, fmt.Errorf("%w: %w", ErrInvalidOverride, err)
	}
	raw, err := c.ForHost("") // the override translated to spec 3.5
	if err != nil {
		return types.Config{}, fmt.Errorf("%w: %w", ErrInvalidOverride, err)
	}
	cfg, _, err := v35.Parse(raw)
	if err != nil {
		return types.Config{}, fmt.Errorf("%w: %w", ErrInvalidOverride, err)
	}
	return cfg, nil
}

// baseConfig is the discovery config before the override.
func baseConfig(in Input) (types.Config, error) {
	files, err := discoveryFiles(in)
	if err != nil {
		return types.Config{}, err
	}
	cfg := types.Config{Ignition: types.Ignition{Version: ignition.Version}}
	for _, f := range files {
		cfg.Storage.Files = append(cfg.Storage.Files, ignFile(f))
	}
	if in.Agent != nil {
		cfg.Storage.Files = append(cfg.Storage.Files, agentFile(*in.Agent))
	}
	if keys := sshKeys(in.SSHAuthorizedKey); len(keys) > 0 {
		u := types.PasswdUser{Name: SSHUser}
		for _, k := range keys {
			u.SSHAuthorizedKeys = append(u.SSHAuthorizedKeys, types.SSHAuthorizedKey(k))
		}
		cfg.Passwd.Users = []types.PasswdUser{u}
	}
	enabled := true
	contents := agentUnit
	cfg.Systemd.Units = []types.Unit{{Name: AgentUnit, Enabled: &enabled, Contents: &contents}}
	return cfg, nil
}

// discoveryFiles lists the files of in, sorted by path.
func discoveryFiles(in Input) ([]file, error) {
	conf, err := agentConfig(in)
	if err != nil {
		return nil, err
	}
	files := []file{{AgentConfigPath, 0o600, conf}}
	if in.PullSecret != "" {
		files = append(files, file{PullSecretPath, 0o600, []byte(in.PullSecret)})
	}
	if !in.Proxy.IsZero() {
		mode := 0o644
		if len(proxyUserinfo(in.Proxy.HTTPProxy))+len(proxyUserinfo(in.Proxy.HTTPSProxy)) > 0 {
			mode = 0o600
		}
		files = append(files, file{ProxyProfilePath, mode, proxyProfile(in.Proxy)},
			file{ProxyDropInPath, mode, proxyDropIn(in.Proxy)})
	}
	if len(in.NTPSources) > 0 {
		files = append(files, file{ChronyPath, 0o644, chronyConf(in.NTPSources)})
	}
	netFiles, err := nmstate.ConvertHosts(in.StaticNetwork)
	if err != nil {
		return nil, fmt.Errorf("%w: static_network_config: %w", ErrInvalidInput, err)
	}
	for _, f := range netFiles {
		files = append(files, file{path.Join(nmstate.NetworkDir, f.Name), nmstate.FileMode, f.Data})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].path < files[j].path })
	return files, nil
}

// ignFile is f as an Ignition file entry: overwritten, root-owned, its
// contents a percent-encoded data URL.
func ignFile(f file) types.File {
	overwrite := true
	mode := f.mode
	source := "data:," + url.PathEscape(string(f.data))
	return types.File{
		Node: types.Node{Path: f.path, Overwrite: &overwrite},
		FileEmbedded1: types.FileEmbedded1{
			Mode:     &mode,
			Contents: types.Resource{Source: &source},
		},
	}
}

// agentFile is rackboot-agent fetched from the appliance: Ignition checks
// the sha512 before it writes the file, 0755, root-owned.
func agentFile(a RemoteAgent) types.File {
	overwrite := true
	mode := 0o755
	source, hash := a.URL, "sha512-"+a.SHA512
	return types.File{
		Node: types.Node{Path: AgentBinary, Overwrite: &overwrite},
		FileEmbedded1: types.FileEmbedded1{
			Mode: &mode,
			Contents: types.Resource{Source: &source,
				Verification: types.Verification{Hash: &hash}},
		},
	}
}
