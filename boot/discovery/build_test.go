package discovery

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"flag"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v35 "github.com/coreos/ignition/v2/config/v3_5"
	"github.com/coreos/ignition/v2/config/v3_5/types"

	"github.com/rackboot/rackboot/boot/ignition"
	"github.com/rackboot/rackboot/boot/nmstate"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

const (
	testToken      = "eyJhbGciOiJFUzI1NiIsImtpZCI6InRlc3QifQ.eyJpbmZyYV9lbnZfaWQiOiJ0ZXN0In0.c2lnbmF0dXJlLW5vdC1yZWFs"
	testInfraEnv   = "0b6f1f6e-0f6c-4d38-9d5f-7a1c3c1b2e4d"
	testPullSecret = `{"auths":{"quay.io":{"auth":"cHVsbHVzZXI6cHVsbHNlY3JldHBhc3N3b3Jk","email":"ops@example.com"}}}`
	testProxyPass  = "pr0xy%40pass"
)

// testSSHKey is a well-formed ed25519 public key line (the key is 0..31).
func testSSHKey() string {
	var b bytes.Buffer
	for _, part := range [][]byte{[]byte("ssh-ed25519"), func() []byte {
		k := make([]byte, 32)
		for i := range k {
			k[i] = byte(i)
		}
		return k
	}()} {
		_ = binary.Write(&b, binary.BigEndian, uint32(len(part)))
		b.Write(part)
	}
	return "ssh-ed25519 " + base64.StdEncoding.EncodeToString(b.Bytes()) + " ops@rack"
}

const hostYAML = `interfaces:
- name: eth0
  type: ethernet
  state: up
  ipv4:
    enabled: true
    address:
    - ip: 192.168.100.21
      prefix-length: 24
dns-resolver:
  config:
    server: [192.168.100.1]
routes:
  config:
  - destination: 0.0.0.0/0
    next-hop-address: 192.168.100.1
    next-hop-interface: eth0
`

func minimalInput() Input {
	return Input{ServiceURL: "http://192.168.100.1:8090", InfraEnvID: testInfraEnv, AgentToken: testToken}
}

func fullInput() Input {
	in := minimalInput()
	in.PullSecret = testPullSecret
	in.SSHAuthorizedKey = "# the operators\n" + testSSHKey() + "\n"
	in.Proxy = Proxy{
		HTTPProxy:  "http://ops:" + testProxyPass + "@proxy.example.com:3128",
		HTTPSProxy: "http://ops:" + testProxyPass + "@proxy.example.com:3128",
		NoProxy:    ".cluster.local,10.0.0.0/8,192.168.100.1",
	}
	in.NTPSources = []string{"ntp.example.com", "192.168.100.1"}
	in.StaticNetwork = []nmstate.HostStaticNetworkConfig{
		{MACInterfaceMap: []nmstate.MACInterface{{MACAddress: "52:54:00:00:00:21", LogicalNICName: "eth0"}}, NetworkYAML: hostYAML},
		{MACInterfaceMap: []nmstate.MACInterface{{MACAddress: "52:54:00:00:00:22", LogicalNICName: "eth0"}},
			NetworkYAML: strings.ReplaceAll(hostYAML, "100.21", "100.22")},
	}
	in.IgnitionOverride = `{"ignition":{"version":"3.2.0"},"storage":{"files":[{"path":"/etc/motd","contents":{"source":"data:,hello%0A"},"mode":420}]},
		"systemd":{"units":[{"name":"debug.service","enabled":true,"contents":"[Service]\nExecStart=/bin/true\n[Install]\nWantedBy=multi-user.target\n"}]}}`
	return in
}

func TestBuildGolden(t *testing.T) {
	replaceConf := minimalInput()
	replaceConf.IgnitionOverride = `{"ignition":{"version":"3.5.0"},"storage":{"files":[{"path":"` + AgentConfigPath +
		`","overwrite":true,"contents":{"source":"data:,%7B%7D"},"mode":384}]},"systemd":{"units":[{"name":"` + AgentUnit + `","enabled":false}]}}`
	for name, in := range map[string]Input{
		"minimal":              minimalInput(),
		"full":                 fullInput(),
		"override-replaces":    replaceConf,
		"trailing-slash-no-ps": func() Input { in := minimalInput(); in.ServiceURL += "/api/"; return in }(),
		"remote-agent": func() Input {
			in := minimalInput()
			in.Agent = &RemoteAgent{URL: in.ServiceURL + "/agent/arm64/rackboot-agent", SHA512: strings.Repeat("ab", 64)}
			return in
		}(),
	} {
		t.Run(name, func(t *testing.T) {
			raw, err := Build(in)
			if err != nil {
				t.Fatal(err)
			}
			again, _ := Build(in)
			if !bytes.Equal(raw, again) {
				t.Error("two builds of one input differ")
			}
			if _, err := ignition.Parse(raw); err != nil {
				t.Fatalf("output does not parse: %v", err)
			}
			var pretty bytes.Buffer
			if err := json.Indent(&pretty, raw, "", "  "); err != nil {
				t.Fatal(err)
			}
			pretty.WriteByte('\n')
			golden(t, name+".ign", pretty.Bytes())
		})
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update to accept):\n%s", path, got)
	}
}

// TestBuildContents reads the produced config back as a host would.
func TestBuildContents(t *testing.T) {
	in := fullInput()
	raw, err := Build(in)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := v35.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]types.File{}
	for _, f := range cfg.Storage.Files {
		files[f.Path] = f
	}
	var ac AgentConfig
	if err := json.Unmarshal(contents(t, files, AgentConfigPath, 0o600), &ac); err != nil {
		t.Fatal(err)
	}
	if ac != (AgentConfig{ServiceURL: in.ServiceURL, InfraEnvID: testInfraEnv, Token: testToken}) {
		t.Errorf("agent config %+v", ac)
	}
	if got := string(contents(t, files, PullSecretPath, 0o600)); got != testPullSecret {
		t.Errorf("pull secret %q", got)
	}
	profile := string(contents(t, files, ProxyProfilePath, 0o600))
	if !strings.Contains(profile, "export https_proxy='http://ops:"+testProxyPass+"@proxy.example.com:3128'\n") {
		t.Errorf("proxy.sh:\n%s", profile)
	}
	dropin := string(contents(t, files, ProxyDropInPath, 0o600))
	if !strings.Contains(dropin, `Environment="NO_PROXY=.cluster.local,10.0.0.0/8,192.168.100.1"`) ||
		!strings.Contains(dropin, "pr0xy%%40pass@") {
		t.Errorf("drop-in (want %% doubled):\n%s", dropin)
	}
	if got := string(contents(t, files, ChronyPath, 0o644)); !strings.Contains(got, "server ntp.example.com iburst\nserver 192.168.100.1 iburst\n") {
		t.Errorf("chrony:\n%s", got)
	}
	for _, h := range []string{"host0", "host1"} {
		ini := string(contents(t, files, nmstate.NetworkDir+"/"+h+"/"+nmstate.MACInterfaceFile, 0o600))
		kf := string(contents(t, files, nmstate.NetworkDir+"/"+h+"/eth0.nmconnection", 0o600))
		if !strings.Contains(ini, "52:54:00:00:00:2") || !strings.Contains(kf, "address1=192.168.100.2") {
			t.Errorf("%s: ini %q keyfile:\n%s", h, ini, kf)
		}
	}
	contents(t, files, "/etc/motd", 0o644) // from the override
	if len(cfg.Passwd.Users) != 1 || cfg.Passwd.Users[0].Name != "core" ||
		len(cfg.Passwd.Users[0].SSHAuthorizedKeys) != 1 || string(cfg.Passwd.Users[0].SSHAuthorizedKeys[0]) != testSSHKey() {
		t.Errorf("users %+v", cfg.Passwd.Users)
	}
	units := map[string]types.Unit{}
	for _, u := range cfg.Systemd.Units {
		units[u.Name] = u
	}
	if u := units[AgentUnit]; u.Enabled == nil || !*u.Enabled || u.Contents == nil || !strings.Contains(*u.Contents, "ExecStart="+AgentBinary) {
		t.Errorf("agent unit %+v", u)
	}
	if u := units["debug.service"]; u.Enabled == nil || !*u.Enabled {
		t.Errorf("override unit missing: %+v", u)
	}
}

func contents(t *testing.T, files map[string]types.File, path string, mode int) []byte {
	t.Helper()
	f, ok := files[path]
	if !ok {
		t.Fatalf("no file %s", path)
	}
	if f.Mode == nil || *f.Mode != mode {
		t.Errorf("%s: mode %v, want %o", path, f.Mode, mode)
	}
	src := *f.Contents.Source
	data, err := url.PathUnescape(strings.TrimPrefix(src, "data:,"))
	if err != nil || !strings.HasPrefix(src, "data:,") {
		t.Fatalf("%s: source %q", path, src)
	}
	return []byte(data)
}
