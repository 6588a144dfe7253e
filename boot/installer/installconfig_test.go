package installer

import (
	"errors"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestInstallConfigGolden(t *testing.T) {
	withOverrides := multiNodeCluster()
	withOverrides.Name = "overrides"
	withOverrides.InstallConfigOverrides = `{"networking":{"networkType":"OpenShiftSDN","serviceNetwork":["172.31.0.0/16"]},` +
		`"fips":true,"sshKey":null,"platform":{"baremetal":{"ingressVIPs":["192.0.2.111"]}},` +
		`"capabilities":{"baselineCapabilitySet":"None","additionalEnabledCapabilities":["marketplace"]},` +
		`"compute":[{"name":"worker","replicas":2,"hyperthreading":"Disabled"}]}`
	userManaged := multiNodeCluster()
	userManaged.Name = "umn"
	userManaged.APIVIPs, userManaged.IngressVIPs, userManaged.NetworkType = nil, nil, ""
	for _, tc := range []struct {
		golden string
		c      Cluster
	}{
		{"install-config-sno.yaml", singleNodeCluster()},
		{"install-config-3+1.yaml", multiNodeCluster()},
		{"install-config-overrides.yaml", withOverrides},
		{"install-config-umn.yaml", userManaged},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			raw, err := InstallConfig(tc.c)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tc.golden, raw)
			var doc map[string]any
			if err := yaml.Unmarshal(raw, &doc); err != nil {
				t.Fatalf("not YAML: %v", err)
			}
			if doc["pullSecret"] != testPullSecret {
				t.Errorf("pullSecret = %v, want the cluster's, intact", doc["pullSecret"])
			}
		})
	}
}

// TestInstallConfigFields reads the SNO and 3+1 documents back and checks
// what openshift-install reads from them.
func TestInstallConfigFields(t *testing.T) {
	type doc struct {
		APIVersion string `yaml:"apiVersion"`
		BaseDomain string `yaml:"baseDomain"`
		Metadata   struct{ Name string }
		Networking struct {
			NetworkType    string `yaml:"networkType"`
			ClusterNetwork []struct {
				CIDR       string
				HostPrefix int `yaml:"hostPrefix"`
			} `yaml:"clusterNetwork"`
			MachineNetwork []struct{ CIDR string } `yaml:"machineNetwork"`
			ServiceNetwork []string                `yaml:"serviceNetwork"`
		}
		ControlPlane struct {
			Name     string
			Replicas int
		} `yaml:"controlPlane"`
		Compute []struct {
			Name     string
			Replicas int
		}
		Platform struct {
			Baremetal *struct {
				APIVIPs     []string `yaml:"apiVIPs"`
				IngressVIPs []string `yaml:"ingressVIPs"`
			}
			None *struct{}
		}
		BootstrapInPlace *struct {
			InstallationDisk string `yaml:"installationDisk"`
		} `yaml:"bootstrapInPlace"`
		SSHKey string `yaml:"sshKey"`
	}
	read := func(c Cluster) doc {
		raw, err := InstallConfig(c)
		if err != nil {
			t.Fatal(err)
		}
		var d doc
		if err := yaml.Unmarshal(raw, &d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	m := read(multiNodeCluster())
	if m.APIVersion != "v1" || m.BaseDomain != "rack.example" || m.Metadata.Name != "demo" ||
		m.ControlPlane.Name != "master" || m.ControlPlane.Replicas != 3 ||
		len(m.Compute) != 1 || m.Compute[0].Name != "worker" || m.Compute[0].Replicas != 1 ||
		m.Platform.Baremetal == nil || m.Platform.None != nil || m.BootstrapInPlace != nil ||
		m.Platform.Baremetal.APIVIPs[0] != "192.0.2.100" || m.Platform.Baremetal.IngressVIPs[0] != "192.0.2.101" ||
		m.Networking.ClusterNetwork[0].HostPrefix != 23 || m.Networking.MachineNetwork[0].CIDR != "192.0.2.0/24" ||
		m.Networking.ServiceNetwork[0] != "172.30.0.0/16" || m.SSHKey != testSSHKey {
		t.Errorf("3+1 install-config: %+v", m)
	}
	s := read(singleNodeCluster())
	if s.ControlPlane.Replicas != 1 || s.Compute[0].Replicas != 0 || s.Platform.None == nil || s.Platform.Baremetal != nil ||
		s.BootstrapInPlace == nil || s.BootstrapInPlace.InstallationDisk != "/dev/disk/by-id/virtio-sno0" {
		t.Errorf("SNO install-config: %+v", s)
	}
	noDisk := singleNodeCluster()
	noDisk.Hosts[0].InstallationDisk = ""
	if d := read(noDisk); d.BootstrapInPlace != nil {
		t.Errorf("bootstrapInPlace without a known disk: %+v", d.BootstrapInPlace)
	}
}

func TestInstallConfigInvalid(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Cluster)
		want error
		text string
	}{
		{"no name", func(c *Cluster) { c.Name = "" }, ErrInvalidInput, "name"},
		{"no base domain", func(c *Cluster) { c.BaseDomain = "" }, ErrInvalidInput, "base domain"},
		{"override not JSON", func(c *Cluster) { c.InstallConfigOverrides = `{"fips":` }, ErrInstallConfigOverride, "unexpected EOF"},
		{"override array", func(c *Cluster) { c.InstallConfigOverrides = `["fips"]` }, ErrInstallConfigOverride, "not a JSON object"},
		{"override two values", func(c *Cluster) { c.InstallConfigOverrides = `{} {}` }, ErrInstallConfigOverride, "trailing"},
		{"override with the pull secret", func(c *Cluster) {
			c.InstallConfigOverrides = `{"pullSecret":"` + strings.ReplaceAll(testPullSecret, `"`, `\"`) + `"`
		}, ErrInstallConfigOverride, "unexpected EOF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := multiNodeCluster()
			tc.edit(&c)
			raw, err := InstallConfig(c)
			if !errors.Is(err, tc.want) || raw != nil || !strings.Contains(err.Error(), tc.text) {
				t.Fatalf("InstallConfig = %q, %v; want %v saying %q", raw, err, tc.want, tc.text)
			}
			if strings.Contains(err.Error(), "c2VjcmV0") {
				t.Errorf("error shows the pull secret: %v", err)
			}
		})
	}
}

// FuzzInstallConfigOverrides: arbitrary overrides give YAML that parses
// back or ErrInstallConfigOverride, never a panic or the pull secret.
func FuzzInstallConfigOverrides(f *testing.F) {
	for _, s := range []string{"", "{}", "null", "[]", `{"fips":true}`, `{"networking":null}`, `{"a":{"b":{"c":1.5e3}}}`,
		`{"platform":{"baremetal":null,"none":{}}}`, `{"compute":[{"replicas":9007199254740993}]}`, `{"x":"\u0000"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, override string) {
		c := multiNodeCluster()
		c.InstallConfigOverrides = override
		raw, err := InstallConfig(c)
		if err != nil {
			if !errors.Is(err, ErrInstallConfigOverride) {
				t.Fatalf("untyped error: %v", err)
			}
			if strings.Contains(err.Error(), "c2VjcmV0") {
				t.Fatalf("error shows the pull secret: %v", err)
			}
			return
		}
		var doc map[string]any
		if err := yaml.Unmarshal(raw, &doc); err != nil {
			t.Fatalf("output is not YAML: %v\n%s", err, raw)
		}
	})
}
