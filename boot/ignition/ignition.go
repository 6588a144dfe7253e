package ignition

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	v35 "github.com/coreos/ignition/v2/config/v3_5"
	"github.com/coreos/ignition/v2/config/v3_5/types"
	"github.com/coreos/vcontext/report"
)

// ErrInvalid is wrapped by every error for a config Ignition would refuse.
var ErrInvalid = errors.New("invalid Ignition config")

// Version is the spec version of every config this package writes.
const Version = "3.5.0"

// Config is a parsed, validated Ignition config at spec 3.5. The zero value
// is the empty config.
type Config struct {
	cfg      types.Config
	warnings []string
}

// Parse parses and validates raw, accepting spec versions 3.0 to 3.5. The
// error carries Ignition's own report (JSON path, line and column).
func Parse(raw []byte) (Config, error) {
	cfg, rpt, err := v35.ParseCompatibleVersion(raw)
	if err != nil {
		if detail := strings.TrimSpace(rpt.String()); detail != "" {
			return Config{}, fmt.Errorf("%w: %v: %s", ErrInvalid, err, oneLine(detail))
		}
		return Config{}, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	var warnings []string
	for _, e := range rpt.Entries {
		if e.Kind == report.Warn {
			warnings = append(warnings, oneLine(e.String()))
		}
	}
	return Config{cfg: cfg, warnings: warnings}, nil
}

// Warnings lists what Ignition would accept but warn about, such as an
// unknown key (often a typo that silently drops a file).
func (c Config) Warnings() []string {
	return append([]string(nil), c.warnings...)
}

// Load reads and parses the Ignition config in the file at path. The error
// names the file.
func Load(path string) (Config, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("reading Ignition config: %w", err)
	}
	c, err := Parse(raw)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// ForHost returns the config.ign of one host: c merged with a part that
// writes hostname to /etc/hostname (mode 0644, overwriting), or c alone when
// hostname is empty. The JSON is deterministic: the same inputs give the
// same bytes. The caller checks hostname (ipxe.CheckHostname) beforehand.
func (c Config) ForHost(hostname string) ([]byte, error) {
	out := c.cfg
	if hostname != "" {
		out = v35.Merge(c.cfg, hostPart(hostname))
	}
	out.Ignition.Version = Version
	raw, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("encoding Ignition config: %w", err)
	}
	if _, err := Parse(raw); err != nil {
		return nil, fmt.Errorf("merged config for host %q: %w", hostname, err)
	}
	return raw, nil
}

// hostPart is the per-host config: /etc/hostname holding the host name.
func hostPart(hostname string) types.Config {
	mode := 0o644
	overwrite := true
	source := "data:," + url.PathEscape(hostname+"\n")
	return types.Config{
		Ignition: types.Ignition{Version: Version},
		Storage: types.Storage{Files: []types.File{{
			Node: types.Node{Path: "/etc/hostname", Overwrite: &overwrite},
			FileEmbedded1: types.FileEmbedded1{
				Mode:     &mode,
				Contents: types.Resource{Source: &source},
			},
		}}},
	}
}

// oneLine joins a multi-line report so that an error stays one sentence.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "; ")), " ")
}
