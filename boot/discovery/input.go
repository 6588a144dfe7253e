package discovery

import (
	"errors"

	"github.com/rackboot/rackboot/boot/nmstate"
)

// Paths and names in the discovery image.
const (
	AgentConfigPath  = "/etc/rackboot/agent.conf"
	PullSecretPath   = "/root/.docker/config.json"
	ProxyProfilePath = "/etc/profile.d/proxy.sh"
	ProxyDropInPath  = "/etc/systemd/system/" + AgentUnit + ".d/10-proxy.conf"
	ChronyPath       = "/etc/chrony.d/rackboot.conf"
	AgentUnit        = "rackboot-agent.service"
	AgentBinary      = "/usr/local/bin/rackboot-agent"
	SSHUser          = "core"
)

// DefaultMaxSize is the default limit on the Ignition JSON: 256 KiB, the
// size of a CoreOS live ISO's Ignition embed area.
const DefaultMaxSize = 256 << 10

var (
	// ErrInvalidInput: a field of Input is malformed (the error names it).
	ErrInvalidInput = errors.New("invalid discovery input")
	// ErrInvalidOverride: the user's Ignition override is not a valid
	// Ignition config, or breaks the config once merged.
	ErrInvalidOverride = errors.New("invalid ignition_config_override")
	// ErrTooLarge: the config exceeds the size limit.
	ErrTooLarge = errors.New("discovery Ignition too large")
)

// Input is everything a discovery config is made of. Secrets (AgentToken,
// PullSecret, credentials in proxy URLs, SSH keys) are never echoed in
// errors.
type Input struct {
	// ServiceURL is rackbootd's base URL as the host reaches it:
	// http(s)://host[:port][/path], without credentials, query or fragment.
	ServiceURL string
	// InfraEnvID is the infra-env the agent registers with.
	InfraEnvID string
	// AgentToken is the infra-env token the agent authenticates with.
	AgentToken string
	// PullSecret is a container registry auth file ({"auths": {...}});
	// empty: none written.
	PullSecret string
	// SSHAuthorizedKey holds OpenSSH public keys, one a line, for user core.
	SSHAuthorizedKey string
	// Proxy is the HTTP proxy configuration; zero: no proxy.
	Proxy Proxy
	// NTPSources are host names or IP addresses of NTP servers.
	NTPSources []string
	// StaticNetwork is the infra-env's static network config, one element
	// per host (upstream's static_network_config).
	StaticNetwork []nmstate.HostStaticNetworkConfig
	// IgnitionOverride is the user's Ignition config (JSON, spec 3.0–3.5)
	// merged on top; empty: none.
	IgnitionOverride string
	// MaxSize limits the produced JSON in bytes; 0: DefaultMaxSize.
	MaxSize int
	// Agent, when set, makes Ignition fetch rackboot-agent from the
	// appliance into AgentBinary (mode 0755, hash verified): a stock
	// CoreOS live image has no agent of its own. nil: the image carries it.
	Agent *RemoteAgent
}

// RemoteAgent is where a host fetches rackboot-agent for its architecture
// and the hex sha512 Ignition checks it against.
type RemoteAgent struct {
	URL    string
	SHA512 string
}

// Proxy is upstream's proxy object: http_proxy, https_proxy, no_proxy.
type Proxy struct {
	HTTPProxy  string `json:"http_proxy,omitempty"`
	HTTPSProxy string `json:"https_proxy,omitempty"`
	NoProxy    string `json:"no_proxy,omitempty"`
}

// IsZero reports whether no proxy is configured.
func (p Proxy) IsZero() bool { return p == Proxy{} }

// AgentConfig is the JSON in AgentConfigPath that rackboot-agent reads.
type AgentConfig struct {
	ServiceURL string `json:"service_url"`
	InfraEnvID string `json:"infra_env_id"`
	Token      string `json:"token"`
}

// secrets lists the values that must never reach an error.
func (in Input) secrets() []string {
	s := []string{in.AgentToken, in.PullSecret}
	for _, line := range splitLines(in.SSHAuthorizedKey) {
		s = append(s, line)
		s = append(s, sshKeyBlobs(line)...)
	}
	for _, u := range []string{in.Proxy.HTTPProxy, in.Proxy.HTTPSProxy} {
		s = append(s, proxyUserinfo(u)...)
	}
	return s
}
