package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// ErrConfig: the config file cannot be used.
var ErrConfig = errors.New("config file")

// fileConfig is rackbootctl's config file (TOML):
//
//	url = "http://10.0.0.1:8080"
//	token_file = "/etc/rackboot/admin-token"   # or data_dir = "/var/lib/rackboot"
//
// A token may be written inline (token = "…") only in a file that group
// and others cannot read.
type fileConfig struct {
	URL       string `toml:"url"`
	Token     string `toml:"token"`
	TokenFile string `toml:"token_file"`
	DataDir   string `toml:"data_dir"`
}

// configPath is --config, else RACKBOOT_CONFIG, else
// $XDG_CONFIG_HOME/rackboot/rackbootctl.toml (~/.config when unset).
// explicit says whether the user named it (then it must exist).
func (a *app) configPath() (path string, explicit bool) {
	if a.g.config != "" {
		return a.g.config, true
	}
	if p := a.env.Getenv("RACKBOOT_CONFIG"); p != "" {
		return p, true
	}
	base := a.env.Getenv("XDG_CONFIG_HOME")
	if base == "" {
		home := a.env.Getenv("HOME")
		if home == "" {
			return "", false
		}
		base = filepath.Join(home, ".config")
	}
	return filepath.Join(base, "rackboot", "rackbootctl.toml"), false
}

// loadConfig reads the config file once; a missing default file is an
// empty config.
func (a *app) loadConfig() (fileConfig, error) {
	if a.cfg != nil {
		return *a.cfg, nil
	}
	var c fileConfig
	path, explicit := a.configPath()
	if path == "" {
		a.cfg = &c
		return c, nil
	}
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist) && !explicit:
		a.cfg = &c
		return c, nil
	case err != nil:
		return c, fmt.Errorf("%w %s: %w", ErrConfig, path, errors.Unwrap(err))
	}
	dec := toml.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return c, fmt.Errorf("%w %s: %s", ErrConfig, path, tomlReason(err))
	}
	if c.Token != "" {
		st, err := os.Stat(path)
		if err != nil || st.Mode().Perm()&0o077 != 0 {
			return c, fmt.Errorf("%w %s holds a token but group or others can read it (chmod 600 it)", ErrConfig, path)
		}
	}
	a.cfg = &c
	return c, nil
}

// tomlReason explains a decoding error without quoting the file (which
// may hold a token).
func tomlReason(err error) string {
	var se *toml.StrictMissingError
	if errors.As(err, &se) {
		var keys []string
		for _, e := range se.Errors {
			keys = append(keys, strings.Join(e.Key(), "."))
		}
		return "unknown keys: " + strings.Join(keys, ", ") + " (want url, token, token_file, data_dir)"
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, col := de.Position()
		return fmt.Sprintf("line %d, column %d: %s", row, col, strings.SplitN(de.Error(), "\n", 2)[0])
	}
	return "cannot decode"
}

// serverURL is --url, else RACKBOOT_URL, else the config's url, else
// DefaultURL.
func (a *app) serverURL() (string, error) {
	if a.g.url != "" {
		return a.g.url, nil
	}
	if u := a.env.Getenv("RACKBOOT_URL"); u != "" {
		return u, nil
	}
	c, err := a.loadConfig()
	if err != nil {
		return "", err
	}
	if c.URL != "" {
		return c.URL, nil
	}
	return DefaultURL, nil
}

// tokenPath is the file the token is read from when no token is given:
// --data-dir, else the config's token_file or data_dir, else the default.
func (a *app) tokenPath(c fileConfig) string {
	switch {
	case a.g.dataDir != "":
		return filepath.Join(a.g.dataDir, tokenFile)
	case c.TokenFile != "":
		return c.TokenFile
	case c.DataDir != "":
		return filepath.Join(c.DataDir, tokenFile)
	}
	return filepath.Join(DefaultDataDir, tokenFile)
}
