package output_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
	"github.com/rackboot/rackboot/cmd/rackbootctl/output"
	"github.com/rackboot/rackboot/engine/models"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

var now = time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)

func ago(d time.Duration) models.DateTime { return models.DateTime(now.Add(-d)) }

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n--- got\n%s--- want\n%s", name, got, want)
	}
}

func hosts() []*client.Host {
	mk := func(id, status string, approved bool) *client.Host {
		return &client.Host{Approved: approved, Host: models.Host{ID: id, Status: status,
			InfraEnvID: "11111111-2222-3333-4444-555555555555", Role: models.HostRoleAutoAssign}}
	}
	a := mk("aaaaaaaa-0000-0000-0000-000000000001", models.HostStatusKnown, true)
	a.Inventory = `{"hostname":"node-a","cpu":{"count":4}}`
	a.ClusterID = "cccccccc-0000-0000-0000-000000000001"
	a.SuggestedRole = models.HostRoleMaster
	b := mk("aaaaaaaa-0000-0000-0000-000000000002", models.HostStatusInstallingInProgress, true)
	b.RequestedHostname = "worker-1.example.com"
	b.Role = models.HostRoleWorker
	b.ClusterID = a.ClusterID
	b.Progress = &models.HostProgressInfo{CurrentStage: models.HostStageWritingImageToDisk, InstallationPercentage: 42}
	c := mk("aaaaaaaa-0000-0000-0000-000000000003", models.HostStatusInsufficientUnbound, false)
	c.Inventory = `{"hostname":"evil\u001b[31mred\u0007"}`
	c.StatusInfo = "Host does not meet the minimum hardware requirements: Insufficient CPU cores"
	return []*client.Host{a, b, c}
}

func TestTablesGolden(t *testing.T) {
	clusters := []*client.Cluster{{ID: "cccccccc-0000-0000-0000-000000000001", Name: "prod",
		OpenshiftVersion: "4.16", BaseDNSDomain: "example.com", ControlPlaneCount: 3, TotalHostCount: 2,
		Status: "insufficient", StatusInfo: "Cluster is not ready for install", CreatedAt: ago(3 * time.Hour)},
		{ID: "cccccccc-0000-0000-0000-000000000002", Name: "edge", OpenshiftVersion: "4.16", BaseDNSDomain: "example.com",
			ControlPlaneCount: 1, TotalHostCount: 1, Status: "installed", StatusInfo: "Cluster is installed", CreatedAt: ago(time.Hour),
			InstallStartedAt: ago(40 * time.Minute), InstallCompletedAt: ago(31*time.Minute + 30*time.Second),
			Progress: &client.ClusterProgressInfo{TotalPercentage: 100}},
		{ID: "cccccccc-0000-0000-0000-000000000003", Name: "rack2", OpenshiftVersion: "4.16", BaseDNSDomain: "example.com",
			ControlPlaneCount: 3, TotalHostCount: 4, Status: "installing", StatusInfo: "Installation in progress", CreatedAt: ago(time.Hour),
			InstallStartedAt: ago(5 * time.Minute), Progress: &client.ClusterProgressInfo{TotalPercentage: 42}}}
	envs := []*client.InfraEnv{
		{ID: "11111111-2222-3333-4444-555555555555", Name: "lab", ClusterID: clusters[0].ID, Type: "full-iso",
			CPUArchitecture: "x86_64", CreatedAt: ago(90 * time.Second), PullSecretSet: true},
		{ID: "11111111-2222-3333-4444-666666666666", Name: "late", CreatedAt: ago(50 * time.Hour),
			Proxy: &client.Proxy{HTTPProxy: new("http://proxy:3128")}, SSHAuthorizedKey: "ssh-ed25519 AAAA"},
	}
	events := []*client.Event{
		{EventTime: ago(time.Minute), Severity: "info", InfraEnvID: envs[0].ID, Message: "Registered infra env"},
		{EventTime: ago(10 * time.Second), Severity: "warning", HostID: "aaaaaaaa-0000-0000-0000-000000000003",
			InfraEnvID: envs[0].ID, Message: "Host insufficient:\nnot enough CPU"},
	}
	for _, c := range []struct {
		name string
		tab  output.Table
	}{
		{"clusters.txt", output.Clusters(clusters, false, now)},
		{"clusters-wide.txt", output.Clusters(clusters, true, now)},
		{"infraenvs.txt", output.InfraEnvs(envs, false, now)},
		{"infraenvs-wide.txt", output.InfraEnvs(envs, true, now)},
		{"hosts.txt", output.Hosts(hosts(), false)},
		{"hosts-wide.txt", output.Hosts(hosts(), true)},
		{"events.txt", output.Events(events)},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := output.Write(&b, output.FormatTable, nil, c.tab); err != nil {
				t.Fatal(err)
			}
			golden(t, c.name, b.Bytes())
		})
	}
}

func TestJSONAndYAMLGolden(t *testing.T) {
	h := hosts()[1]
	for _, c := range []struct {
		name string
		f    output.Format
	}{{"host.json", output.FormatJSON}, {"host.yaml", output.FormatYAML}} {
		var b bytes.Buffer
		if err := output.Write(&b, c.f, h, output.Table{}); err != nil {
			t.Fatal(err)
		}
		golden(t, c.name, b.Bytes())
	}
}
