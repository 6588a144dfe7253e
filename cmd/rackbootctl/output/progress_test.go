package output_test

import (
	"bytes"
	"testing"

	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
	"github.com/rackboot/rackboot/cmd/rackbootctl/output"
	"github.com/rackboot/rackboot/engine/models"
)

// installingHosts is a cluster in the middle of its installation: one
// host at each interesting point.
func installingHosts() []*client.Host {
	mk := func(n int, name string, role models.HostRole, status string, stage models.HostStage, info string) *client.Host {
		h := &client.Host{Approved: true, Host: models.Host{ID: "aaaaaaaa-0000-0000-0000-00000000000" + string(rune('0'+n)),
			RequestedHostname: name, Role: role, Status: status}}
		if stage != "" {
			h.Progress = &models.HostProgressInfo{CurrentStage: stage, ProgressInfo: info}
		}
		return h
	}
	bootstrap := mk(1, "master-0", models.HostRoleMaster, models.HostStatusInstallingInProgress, models.HostStageWritingImageToDisk, "42%")
	bootstrap.Bootstrap = true
	served := mk(2, "master-1", models.HostRoleMaster, models.HostStatusInstallingInProgress, models.HostStageRebooting, "")
	served.Progress.InstallationPercentage = 57 // the server's percentage is shown as it is
	return []*client.Host{
		bootstrap, served,
		mk(3, "master-2", models.HostRoleMaster, models.HostStatusInstalled, models.HostStageDone, ""),
		mk(4, "worker-0", models.HostRoleWorker, models.HostStatusError, models.HostStageFailed, "image sha256 mismatch: got 1f2e…, want 9a8b…"),
		mk(5, "", models.HostRoleWorker, models.HostStatusPreparingForInstallation, "", ""),
		mk(6, "spare", models.HostRoleAutoAssign, models.HostStatusKnown, "", ""),
	}
}

func TestProgressGolden(t *testing.T) {
	var b bytes.Buffer
	if err := output.Write(&b, output.FormatProgress, nil, output.Progress(installingHosts())); err != nil {
		t.Fatal(err)
	}
	golden(t, "progress.txt", b.Bytes())
}

func TestPercent(t *testing.T) {
	stage := func(s models.HostStage, info string, pct int64) *client.Host {
		return &client.Host{Host: models.Host{Status: models.HostStatusInstallingInProgress,
			Progress: &models.HostProgressInfo{CurrentStage: s, ProgressInfo: info, InstallationPercentage: pct}}}
	}
	own := stage(models.HostStageInstalling, "", 0)
	own.ProgressStages = []models.HostStage{models.HostStageInstalling, models.HostStageDone}
	for _, c := range []struct {
		name string
		h    *client.Host
		want int
	}{
		{"no progress", &client.Host{Host: models.Host{Status: models.HostStatusKnown}}, 0},
		{"starting", stage(models.HostStageStartingInstallation, "", 0), 14},
		{"disk write start", stage(models.HostStageWritingImageToDisk, "0%", 0), 28},
		{"disk write half", stage(models.HostStageWritingImageToDisk, "50%", 0), 35},
		{"disk write done", stage(models.HostStageWritingImageToDisk, "100%", 0), 42},
		{"disk write garbage", stage(models.HostStageWritingImageToDisk, "lots", 0), 42},
		{"server's percentage", stage(models.HostStageRebooting, "", 60), 60},
		{"unknown stage: server's", stage("Waiting for bootkube", "", 33), 33},
		{"done", stage(models.HostStageDone, "", 0), 100},
		{"host's own stages", own, 50},
		{"installed", &client.Host{Host: models.Host{Status: models.HostStatusInstalled}}, 100},
		{"out of range", stage("Weird", "", 250), 100},
	} {
		if got := output.Percent(c.h); got != c.want {
			t.Errorf("%s: Percent = %d, want %d", c.name, got, c.want)
		}
	}
}

func TestFailingValidationsGolden(t *testing.T) {
	c := &client.Cluster{ID: "cccccccc-0000-0000-0000-000000000001", Name: "prod",
		ValidationsInfo: `{"configuration":[{"id":"pull-secret-set","status":"success","message":"The pull secret is set."}],` +
			`"hosts-data":[{"id":"sufficient-masters-count","status":"failure","message":"The cluster must have exactly 3 dedicated control plane nodes."}],` +
			`"network":[{"id":"api-vips-defined","status":"pending","message":"API virtual IPs are undefined."},{"id":"ntp-server-configured","status":"disabled","message":""}]}`,
		Hosts: []*client.Host{
			{Host: models.Host{ID: "aaaaaaaa-0000-0000-0000-000000000001", RequestedHostname: "master-0",
				ValidationsInfo: `{"hardware":[{"id":"has-min-cpu-cores","status":"failure","message":"The host is not eligible to participate in Openshift Cluster because the minimum required CPU cores for any role is 2, found only 1"}],"network":[{"id":"connected","status":"success","message":"Host is connected"}]}`}},
			{Host: models.Host{ID: "aaaaaaaa-0000-0000-0000-000000000002", ValidationsInfo: `not json`}},
		}}
	var b bytes.Buffer
	if err := output.Write(&b, output.FormatTable, nil, output.FailingValidations(c, nil)); err != nil {
		t.Fatal(err)
	}
	golden(t, "failing-validations.txt", b.Bytes())
	// The server's list wins; its hosts are named where the cluster knows them.
	b.Reset()
	server := []client.FailingValidation{{ID: "all-hosts-are-ready-to-install", Status: "failure", Message: "The cluster has hosts that are not ready to install."},
		{ID: "has-min-memory", Status: "failure", Message: "The host has 1.00 GiB of RAM, 16.00 GiB required", HostID: c.Hosts[0].ID},
		{ID: "connected", Status: "failure", Message: "Host is disconnected", HostID: "aaaaaaaa-0000-0000-0000-000000000009"}}
	if err := output.Write(&b, output.FormatTable, nil, output.FailingValidations(c, server)); err != nil {
		t.Fatal(err)
	}
	golden(t, "failing-validations-server.txt", b.Bytes())
}
