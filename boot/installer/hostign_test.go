package installer

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

const (
	testToken = "eyJhbGciOiJFUzI1NiJ9.host-scoped-secret-token.c2lnbmF0dXJl"
	testURL   = "http://192.0.2.10:8090/api/assisted-install/v2/infra-envs/7a1e/hosts/4b2c/progress"
)

func testParams() HostParams {
	return HostParams{
		Hostname: "master-0.demo.rack.example",
		NetworkKeyfiles: map[string][]byte{
			"/etc/NetworkManager/system-connections/eth1.nmconnection": []byte("[connection]\nid=eth1\ntype=ethernet\n\n[ipv4]\nmethod=manual\naddress1=192.0.2.21/24,192.0.2.1\n"),
			"/etc/NetworkManager/system-connections/eth0.nmconnection": []byte("[connection]\nid=eth0\ntype=ethernet\n\n[ipv4]\nmethod=auto\n"),
		},
		FirstBoot: FirstBoot{ProgressURL: testURL, Token: testToken},
	}
}

func TestHostIgnitionGolden(t *testing.T) {
	override := `{"ignition":{"version":"3.1.0"},"storage":{"files":[` +
		`{"path":"/etc/motd","contents":{"source":"data:,installed%20by%20rackboot%0A"},"mode":420},` +
		`{"path":"/etc/NetworkManager/system-connections/eth0.nmconnection","overwrite":true,"contents":{"source":"data:,replaced"},"mode":384}]}}`
	for _, tc := range []struct {
		role, golden string
		edit         func(*HostParams)
	}{
		{"roles/master.ign", "host-master.json", func(*HostParams) {}},
		{"roles/bootstrap.ign", "host-bootstrap.json", func(p *HostParams) { p.NetworkKeyfiles = nil }},
		{"roles/worker.ign", "host-worker-override.json", func(p *HostParams) {
			p.Hostname = "worker-0"
			p.IgnitionOverride = override
		}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			p := testParams()
			tc.edit(&p)
			role := readTestdata(t, tc.role)
			out, err := HostIgnition(role, p)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tc.golden, out)
			again, err := HostIgnition(role, p)
			if err != nil || !bytes.Equal(out, again) {
				t.Errorf("HostIgnition is not deterministic (%v)", err)
			}
			checkHostConfig(t, out, p)
		})
	}
}

// checkHostConfig asserts what the installed system would get from out.
func checkHostConfig(t *testing.T, out []byte, p HostParams) {
	t.Helper()
	cfg := mustParse(t, out)
	want := map[string]struct {
		mode int
		text string
	}{
		HostnamePath:       {0o644, p.Hostname + "\n"},
		FirstBootTokenPath: {0o600, p.FirstBoot.Token},
	}
	for path, data := range p.NetworkKeyfiles {
		want[path] = struct {
			mode int
			text string
		}{0o600, string(data)}
	}
	if p.IgnitionOverride != "" { // the override replaced eth0's keyfile
		delete(want, "/etc/NetworkManager/system-connections/eth0.nmconnection")
	}
	for path, w := range want {
		text, mode, ok := fileOf(t, cfg, path)
		if !ok || mode != w.mode || text != w.text {
			t.Errorf("%s: present %v mode %o %q; want mode %o %q", path, ok, mode, text, w.mode, w.text)
		}
	}
	script, mode, ok := fileOf(t, cfg, FirstBootScript)
	if !ok || mode != 0o755 || !strings.Contains(script, "url='"+p.FirstBoot.ProgressURL+"'") {
		t.Errorf("%s: present %v mode %o, want 0755 holding the progress URL:\n%s", FirstBootScript, ok, mode, script)
	}
	if strings.Contains(script, p.FirstBoot.Token) {
		t.Errorf("the script holds the token; it must read it from %s", FirstBootTokenPath)
	}
	var found bool
	for _, u := range cfg.Systemd.Units {
		if u.Name != FirstBootUnit {
			continue
		}
		found = true
		if u.Enabled == nil || !*u.Enabled || u.Contents == nil {
			t.Fatalf("%s: not enabled or empty", FirstBootUnit)
		}
		for _, line := range []string{"Type=oneshot", "ExecStart=" + FirstBootScript, "WantedBy=multi-user.target"} {
			if !strings.Contains(*u.Contents, "\n"+line+"\n") {
				t.Errorf("%s lacks %q:\n%s", FirstBootUnit, line, *u.Contents)
			}
		}
		if strings.Contains(*u.Contents, p.FirstBoot.Token) {
			t.Errorf("%s holds the token", FirstBootUnit)
		}
	}
	if !found {
		t.Errorf("no %s", FirstBootUnit)
	}
}

func TestHostIgnitionKeepsRoleConfig(t *testing.T) {
	out, err := HostIgnition(readTestdata(t, "roles/bootstrap.ign"), testParams())
	if err != nil {
		t.Fatal(err)
	}
	cfg := mustParse(t, out)
	if text, _, ok := fileOf(t, cfg, "/opt/openshift/release-image"); !ok || !strings.HasPrefix(text, "quay.io/") {
		t.Errorf("role file lost: %q %v", text, ok)
	}
	if len(cfg.Passwd.Users) != 1 || len(cfg.Passwd.Users[0].SSHAuthorizedKeys) != 1 {
		t.Errorf("role user lost: %+v", cfg.Passwd.Users)
	}
	units := map[string]bool{}
	for _, u := range cfg.Systemd.Units {
		units[u.Name] = u.Enabled != nil && *u.Enabled
	}
	if !units["bootkube.service"] || !units[FirstBootUnit] {
		t.Errorf("units %v, want bootkube.service and %s enabled", units, FirstBootUnit)
	}
	master, err := HostIgnition(readTestdata(t, "roles/master.ign"), testParams())
	if err != nil {
		t.Fatal(err)
	}
	mcfg := mustParse(t, master)
	if len(mcfg.Ignition.Config.Merge) != 1 || *mcfg.Ignition.Config.Merge[0].Source != "https://api-int.demo.rack.example:22623/config/master" {
		t.Errorf("the pointer to the machine config server is lost: %+v", mcfg.Ignition.Config)
	}
	if len(mcfg.Ignition.Security.TLS.CertificateAuthorities) != 1 {
		t.Error("the role's CA is lost")
	}
}

func TestHostIgnitionBadInput(t *testing.T) {
	role := readTestdata(t, "roles/master.ign")
	for _, tc := range []struct {
		name string
		edit func(*HostParams)
		role []byte
		want error
		text string
	}{
		{"empty hostname", func(p *HostParams) { p.Hostname = "" }, nil, ErrInvalidInput, "hostname"},
		{"hostname with space", func(p *HostParams) { p.Hostname = "a b" }, nil, ErrInvalidInput, "hostname"},
		{"hostname injection", func(p *HostParams) { p.Hostname = "x\nExecStart=/bin/evil" }, nil, ErrInvalidInput, "hostname"},
		{"hostname leading dash", func(p *HostParams) { p.Hostname = "-x" }, nil, ErrInvalidInput, "hostname"},
		{"relative keyfile", func(p *HostParams) { p.NetworkKeyfiles = map[string][]byte{"eth0.nmconnection": nil} }, nil, ErrInvalidInput, "eth0.nmconnection"},
		{"dotdot keyfile", func(p *HostParams) { p.NetworkKeyfiles = map[string][]byte{"/etc/../root/x": nil} }, nil, ErrInvalidInput, "clean absolute"},
		{"keyfile on token", func(p *HostParams) { p.NetworkKeyfiles = map[string][]byte{FirstBootTokenPath: nil} }, nil, ErrInvalidInput, "itself"},
		{"no progress URL", func(p *HostParams) { p.FirstBoot.ProgressURL = "" }, nil, ErrInvalidInput, "progress URL"},
		{"ftp progress URL", func(p *HostParams) { p.FirstBoot.ProgressURL = "ftp://192.0.2.1/x" }, nil, ErrInvalidInput, "scheme"},
		{"quote in URL", func(p *HostParams) { p.FirstBoot.ProgressURL = "http://192.0.2.1/x'$(reboot)'" }, nil, ErrInvalidInput, "not allowed"},
		{"credentials in URL", func(p *HostParams) { p.FirstBoot.ProgressURL = "http://u:" + testToken + "@192.0.2.1/x" }, nil, ErrInvalidInput, "credentials"},
		{"no token", func(p *HostParams) { p.FirstBoot.Token = "" }, nil, ErrInvalidInput, "token"},
		{"token with newline", func(p *HostParams) { p.FirstBoot.Token = testToken + "\nx" }, nil, ErrInvalidInput, "token"},
		{"invalid role", func(*HostParams) {}, []byte(`{"ignition":{"version":"2.2.0"}}`), ErrRoleConfig, "unsupported config version"},
		{"role not JSON", func(*HostParams) {}, []byte("master"), ErrRoleConfig, "invalid Ignition"},
		{"override not JSON", func(p *HostParams) { p.IgnitionOverride = "{" }, nil, ErrInvalidOverride, "unexpected end of JSON"},
		{"override spec 2", func(p *HostParams) { p.IgnitionOverride = `{"ignition":{"version":"2.2.0"}}` }, nil, ErrInvalidOverride, "unsupported config version"},
		{"override relative path", func(p *HostParams) {
			p.IgnitionOverride = `{"ignition":{"version":"3.5.0"},"storage":{"files":[{"path":"etc/x"}]}}`
		}, nil, ErrInvalidOverride, "path not absolute"},
		{"role link over the token's directory", func(*HostParams) {}, []byte(`{"ignition":{"version":"3.5.0"},"storage":{"links":[{"path":"/etc/rackboot","target":"/tmp"}]}}`),
			ErrRoleConfig, "once merged with the host's files"},
		{"override breaks merge", func(p *HostParams) {
			p.IgnitionOverride = `{"ignition":{"version":"3.5.0"},"storage":{"links":[{"path":"/etc/rackboot","target":"/tmp"}]}}`
		}, nil, ErrInvalidOverride, "once merged"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := testParams()
			tc.edit(&p)
			r := role
			if tc.role != nil {
				r = tc.role
			}
			out, err := HostIgnition(r, p)
			if !errors.Is(err, tc.want) || out != nil {
				t.Fatalf("HostIgnition = %d bytes, %v; want %v", len(out), err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.text) {
				t.Errorf("error %q does not say %q", err, tc.text)
			}
			if strings.Contains(err.Error(), testToken) {
				t.Errorf("error shows the token: %v", err)
			}
		})
	}
}
