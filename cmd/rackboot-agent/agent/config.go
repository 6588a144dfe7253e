package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
)

// Sentinel errors of the agent.
var (
	// ErrConfig: the agent's configuration is missing or malformed.
	ErrConfig = errors.New("agent: bad configuration")
	// ErrRefused: the service refused the agent for good.
	ErrRefused = errors.New("agent: refused by the service")
)

// MaxConfigBytes bounds the config file.
const MaxConfigBytes = 64 << 10

// Config is the agent's configuration.
type Config struct {
	URL          string // service base URL
	InfraEnvID   string
	Token        string // the infra-env's agent token (X-Secret-Key)
	AgentVersion string // discovery_agent_version; "" means the binary's
}

// fileConfig is the JSON config file, as boot/discovery writes it to
// /etc/rackboot/agent.conf:
//
//	{"service_url": "http://10.0.0.1:8090", "infra_env_id": "…", "token": "…"}
//
// "url" is accepted for "service_url".
type fileConfig struct {
	ServiceURL   string `json:"service_url"`
	URL          string `json:"url"`
	InfraEnvID   string `json:"infra_env_id"`
	Token        string `json:"token"`
	AgentVersion string `json:"agent_version"`
}

// LoadConfig reads a JSON config file. Unknown fields are an error, so a
// misspelt key is noticed; the error text never contains the file's
// content.
func LoadConfig(path string) (Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return Config{}, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxConfigBytes+1))
	if err != nil {
		return Config{}, fmt.Errorf("%w: %s: %v", ErrConfig, path, err)
	}
	if len(b) > MaxConfigBytes {
		return Config{}, fmt.Errorf("%w: %s is larger than %d bytes", ErrConfig, path, MaxConfigBytes)
	}
	return ParseConfig(b, path)
}

// ParseConfig decodes a JSON config document; name is used in errors.
func ParseConfig(b []byte, name string) (Config, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var c fileConfig
	if err := dec.Decode(&c); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return Config{}, fmt.Errorf("%w: %s: JSON syntax error at byte %d", ErrConfig, name, se.Offset)
		case errors.As(err, &te):
			return Config{}, fmt.Errorf("%w: %s: field %q must be a %s", ErrConfig, name, te.Field, te.Type)
		}
		// Unknown-field errors name only the field, never a value.
		return Config{}, fmt.Errorf("%w: %s: %v", ErrConfig, name, err)
	}
	if dec.More() {
		return Config{}, fmt.Errorf("%w: %s: more than one JSON document", ErrConfig, name)
	}
	if c.ServiceURL != "" && c.URL != "" && c.ServiceURL != c.URL {
		return Config{}, fmt.Errorf("%w: %s: \"service_url\" and \"url\" disagree", ErrConfig, name)
	}
	url := c.ServiceURL
	if url == "" {
		url = c.URL
	}
	return Config{URL: url, InfraEnvID: c.InfraEnvID, Token: c.Token, AgentVersion: c.AgentVersion}, nil
}

// Merge returns c with every non-empty field of o over it.
func (c Config) Merge(o Config) Config {
	if o.URL != "" {
		c.URL = o.URL
	}
	if o.InfraEnvID != "" {
		c.InfraEnvID = o.InfraEnvID
	}
	if o.Token != "" {
		c.Token = o.Token
	}
	if o.AgentVersion != "" {
		c.AgentVersion = o.AgentVersion
	}
	return c
}

// Check reports a missing service URL or infra-env id.
func (c Config) Check() error {
	if c.URL == "" {
		return fmt.Errorf("%w: no service URL (--url, RACKBOOT_URL or \"service_url\" in the config file)", ErrConfig)
	}
	if c.InfraEnvID == "" {
		return fmt.Errorf("%w: no infra-env id (--infra-env-id, RACKBOOT_INFRA_ENV_ID or \"infra_env_id\" in the config file)", ErrConfig)
	}
	return nil
}

// LogValue shows the config in logs with the token replaced by whether it
// is set.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("url", c.URL),
		slog.String("infra_env_id", c.InfraEnvID),
		slog.Bool("token_set", c.Token != ""),
		slog.String("agent_version", c.AgentVersion),
	)
}

// String keeps the token out of fmt output too.
func (c Config) String() string {
	return fmt.Sprintf("{url:%s infra_env_id:%s token_set:%t agent_version:%s}", c.URL, c.InfraEnvID, c.Token != "", c.AgentVersion)
}

// GoString keeps the token out of %#v.
func (c Config) GoString() string { return "agent.Config" + c.String() }
