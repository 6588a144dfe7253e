package discovery

import (
	"errors"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/boot/ignition"
	"github.com/rackboot/rackboot/boot/nmstate"
)

func TestBuildRefuses(t *testing.T) {
	cases := []struct {
		name   string
		modify func(in *Input)
		want   error
		says   string
	}{
		{"no service URL", func(in *Input) { in.ServiceURL = "" }, ErrInvalidInput, "service_url: empty"},
		{"relative service URL", func(in *Input) { in.ServiceURL = "rackboot:8090" }, ErrInvalidInput, "service_url"},
		{"ftp service URL", func(in *Input) { in.ServiceURL = "ftp://h/" }, ErrInvalidInput, "scheme must be http or https"},
		{"service URL with query", func(in *Input) { in.ServiceURL = "http://h/?a=b" }, ErrInvalidInput, "query"},
		{"service URL with credentials", func(in *Input) { in.ServiceURL = "http://u:p@h/" }, ErrInvalidInput, "credentials"},
		{"service URL with a quote", func(in *Input) { in.ServiceURL = `http://h/"x` }, ErrInvalidInput, "characters"},
		{"bad infra-env id", func(in *Input) { in.InfraEnvID = "../etc" }, ErrInvalidInput, "infra_env_id"},
		{"no token", func(in *Input) { in.AgentToken = "" }, ErrInvalidInput, "agent token: empty"},
		{"token with newline", func(in *Input) { in.AgentToken = "abc\ndef" }, ErrInvalidInput, "agent token"},
		{"pull secret not JSON", func(in *Input) { in.PullSecret = "hunter2hunter2" }, ErrInvalidInput, "pull_secret"},
		{"pull secret without auths", func(in *Input) { in.PullSecret = `{"x":1}` }, ErrInvalidInput, "pull_secret"},
		{"ssh key garbage", func(in *Input) { in.SSHAuthorizedKey = "ssh-ed25519 !!!notbase64" }, ErrInvalidInput, "ssh_authorized_key line 1"},
		{"ssh key wrong type", func(in *Input) { in.SSHAuthorizedKey = "ssh-dss AAAA" }, ErrInvalidInput, "unsupported key type"},
		{"ssh key type mismatch", func(in *Input) { in.SSHAuthorizedKey = "ssh-rsa " + strings.Fields(testSSHKey())[1] }, ErrInvalidInput, "does not match"},
		{"ssh key with options", func(in *Input) { in.SSHAuthorizedKey = "\n\ncommand=\"x\" " + testSSHKey() }, ErrInvalidInput, "line 3"},
		{"https http_proxy", func(in *Input) { in.Proxy.HTTPProxy = "https://p:3128" }, ErrInvalidInput, "http_proxy \"https://p:3128\": scheme must be http"},
		{"proxy with path", func(in *Input) { in.Proxy.HTTPSProxy = "http://p:3128/x" }, ErrInvalidInput, "scheme://host[:port] only"},
		{"proxy with newline", func(in *Input) { in.Proxy.HTTPProxy = "http://p:3128\nexport X=1" }, ErrInvalidInput, "not a valid URL"},
		{"proxy with quote", func(in *Input) { in.Proxy.HTTPProxy = "http://p'$(reboot)':3128" }, ErrInvalidInput, "http_proxy"},
		{"bad no_proxy", func(in *Input) { in.Proxy.NoProxy = "a.com,,b" }, ErrInvalidInput, "no_proxy entry 1"},
		{"no_proxy injection", func(in *Input) { in.Proxy.NoProxy = "a.com'\nreboot" }, ErrInvalidInput, "no_proxy entry 0"},
		{"bad ntp", func(in *Input) { in.NTPSources = []string{"ok.example.com", "bad host"} }, ErrInvalidInput, "ntp_sources[1]"},
		{"bad static network", func(in *Input) {
			in.StaticNetwork = []nmstate.HostStaticNetworkConfig{{NetworkYAML: hostYAML}}
		}, ErrInvalidInput, "static_network_config: host 0"},
		{"override not JSON", func(in *Input) { in.IgnitionOverride = "{" }, ErrInvalidOverride, "invalid Ignition config"},
		{"override spec 2", func(in *Input) { in.IgnitionOverride = `{"ignition":{"version":"2.2.0"}}` }, ErrInvalidOverride, "unsupported config version"},
		{"override relative path", func(in *Input) {
			in.IgnitionOverride = `{"ignition":{"version":"3.5.0"},"storage":{"files":[{"path":"etc/x"}]}}`
		}, ErrInvalidOverride, "path not absolute"},
		{"override too large", func(in *Input) { in.IgnitionOverride = strings.Repeat(" ", 2000); in.MaxSize = 1000 }, ErrTooLarge, "2000 bytes, over the 1000-byte limit"},
		{"result too large", func(in *Input) { in.MaxSize = 1000 }, ErrTooLarge, "over the 1000-byte limit"},
		{"negative limit", func(in *Input) { in.MaxSize = -1 }, ErrInvalidInput, "negative size limit"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := fullInput()
			c.modify(&in)
			raw, err := Build(in)
			if !errors.Is(err, c.want) || raw != nil {
				t.Fatalf("err = %v (output %d bytes), want %v", err, len(raw), c.want)
			}
			if !strings.Contains(err.Error(), c.says) {
				t.Errorf("error %q does not say %q", err, c.says)
			}
			assertNoSecrets(t, err, in)
		})
	}
}

func TestOverrideErrorIsIgnitions(t *testing.T) {
	in := minimalInput()
	in.IgnitionOverride = `{"ignition":{"version":"3.5.0"},"storage":{"files":[{"path":"/x","mode":"420"}]}}`
	_, err := Build(in)
	if !errors.Is(err, ErrInvalidOverride) || !errors.Is(err, ignition.ErrInvalid) {
		t.Fatalf("err = %v: want ErrInvalidOverride wrapping ignition.ErrInvalid", err)
	}
	_, perr := ignition.Parse([]byte(in.IgnitionOverride))
	if !strings.Contains(err.Error(), perr.Error()) {
		t.Errorf("error %q does not carry the parser's message %q", err, perr)
	}
}

// TestSecretsScrubbed makes the override echo every secret; the error
// must still not show them.
func TestSecretsScrubbed(t *testing.T) {
	in := fullInput()
	in.IgnitionOverride = `{"ignition":{"version":"3.5.0"},"storage":{"files":[{"path":"relative/` +
		testToken + `/cHVsbHVzZXI6cHVsbHNlY3JldHBhc3N3b3Jk/` + testProxyPass + `"}]}}`
	_, err := Build(in)
	if !errors.Is(err, ErrInvalidOverride) {
		t.Fatalf("err = %v", err)
	}
	assertNoSecrets(t, err, in)
	if !strings.Contains(err.Error(), "[redacted]") {
		t.Logf("parser did not echo the path: %v", err)
	}
	in.IgnitionOverride = "{" + in.PullSecret
	_, err = Build(in)
	assertNoSecrets(t, err, in)
}

func assertNoSecrets(t *testing.T, err error, in Input) {
	t.Helper()
	msg := err.Error()
	for _, s := range []string{in.AgentToken, in.PullSecret, "cHVsbHVzZXI6cHVsbHNlY3JldHBhc3N3b3Jk", testProxyPass,
		strings.Fields(testSSHKey())[1]} {
		if s != "" && strings.Contains(msg, s) {
			t.Errorf("error %q shows secret %q", msg, s)
		}
	}
}

func TestBuildRefusesABadRemoteAgent(t *testing.T) {
	for _, a := range []RemoteAgent{
		{URL: "ftp://192.168.100.1/agent", SHA512: strings.Repeat("ab", 64)},
		{URL: "http://192.168.100.1:8090/agent/amd64/rackboot-agent", SHA512: "abc"},
		{URL: "http://192.168.100.1:8090/agent/amd64/rackboot-agent", SHA512: strings.Repeat("AB", 64)},
	} {
		in := minimalInput()
		in.Agent = &a
		if _, err := Build(in); !errors.Is(err, ErrInvalidInput) || !strings.Contains(err.Error(), "agent") {
			t.Errorf("%+v: %v", a, err)
		}
	}
}
