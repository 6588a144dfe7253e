package api

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/enginetest"
	"github.com/rackboot/rackboot/engine/install"
	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/engine/validation"
)

// A host preparing for installation is handed upstream's
// installation-disk-speed-check on its installation disk, once; the
// agent's measurement lands in disks_info and in
// sufficient-installation-disk-speed. A reply that failed (a disk found
// too slow) is recorded too and fails the validation with upstream's
// message.
func TestDiskSpeedMeasuredWhilePreparing(t *testing.T) {
	e := newMemEnv(t)
	gen := &stuckGenerator{stuck: map[string]bool{}}
	startController(t, e, gen, install.Options{PrepareTimeout: time.Hour})
	rk := readySNOWithHost(t, e, 1)
	gen.mu.Lock()
	gen.stuck[rk.cluster.ID] = true
	gen.mu.Unlock()
	a := rk.agents[0]
	if st, msg := validationOf(t, a.host(), validation.HostSufficientInstallationDiskSpeed); st != validation.StatusSuccess ||
		msg != "Speed of installation disk has not yet been measured" {
		t.Errorf("before: %s %q", st, msg)
	}
	e.must(adminCred(), 202, "POST", "/clusters/"+rk.cluster.ID+"/actions/install", nil)
	rk.waitCluster(engine.ClusterStatusPreparingForInstallation)

	var got models.Steps
	e.must(a.agent, 200, "GET", a.path()+"/instructions", nil).decode(t, &got)
	var step *models.Step
	for _, st := range got.Instructions {
		if st.StepType == models.StepTypeInstallationDiskSpeedCheck {
			step = st
		}
	}
	if step == nil || len(step.Args) != 1 {
		t.Fatalf("preparing host's instructions %+v: no installation-disk-speed-check", got.Instructions)
	}
	var req models.DiskSpeedCheckRequest
	if err := json.Unmarshal([]byte(step.Args[0]), &req); err != nil {
		t.Fatal(err)
	}
	disk := a.host().InstallationDiskPath
	if req.Path == "" || req.Path != disk || req.ThresholdMs != 10 {
		t.Fatalf("disk speed request %+v, want the installation disk %q and 10 ms", req, disk)
	}
	out, err := a.exec(nil, step) // the agent's executor, on a file of the test's
	if err != nil {
		t.Fatal(err)
	}
	e.must(a.agent, 204, "POST", a.path()+"/instructions", models.StepReply{StepID: step.StepID, StepType: step.StepType, Output: out})
	h := a.host()
	var info map[string]struct {
		DiskSpeed struct {
			Tested   bool  `json:"tested"`
			ExitCode int64 `json:"exit_code"`
		} `json:"disk_speed"`
	}
	if err := json.Unmarshal([]byte(h.DisksInfo), &info); err != nil || !info[disk].DiskSpeed.Tested || info[disk].DiskSpeed.ExitCode != 0 {
		t.Fatalf("disks_info %q: %v", h.DisksInfo, err)
	}
	if st, msg := validationOf(t, h, validation.HostSufficientInstallationDiskSpeed); st != validation.StatusSuccess ||
		msg != "Speed of installation disk is sufficient" {
		t.Errorf("measured: %s %q", st, msg)
	}
	e.must(a.agent, 200, "GET", a.path()+"/instructions", nil).decode(t, &got)
	for _, st := range got.Instructions {
		if st.StepType == models.StepTypeInstallationDiskSpeedCheck {
			t.Errorf("a measured disk is checked again")
		}
	}

	// The agent found the disk too slow: the failed step's output is
	// recorded, and, as upstream, the preparation stops: the host is
	// insufficient, the cluster no longer preparing and nothing installs.
	e.must(a.agent, 204, "POST", a.path()+"/instructions", models.StepReply{StepID: step.StepID, StepType: step.StepType,
		ExitCode: 1, Output: `{"io_sync_duration":42,"path":"` + disk + `"}`, Error: "installation disk too slow"})
	h = a.host()
	if err := json.Unmarshal([]byte(h.DisksInfo), &info); err != nil || info[disk].DiskSpeed.ExitCode != 1 {
		t.Fatalf("disks_info %q: %v", h.DisksInfo, err)
	}
	if st, msg := validationOf(t, h, validation.HostSufficientInstallationDiskSpeed); st != validation.StatusFailure ||
		msg != "While preparing the previous installation the installation disk speed measurement failed or was found to be insufficient" {
		t.Errorf("too slow: %s %q", st, msg)
	}
	if h.Status != models.HostStatusInsufficient || !strings.Contains(h.StatusInfo, "installation disk speed") {
		t.Errorf("host with a slow disk is %s (%s), want insufficient", h.Status, h.StatusInfo)
	}
	if c := rk.get(); c.Status != "insufficient" || !c.InstallStartedAt.Time().IsZero() {
		t.Errorf("cluster is %s (%s) started %v, want insufficient", c.Status, c.StatusInfo, c.InstallStartedAt)
	}
	e.must(a.agent, 200, "GET", a.path()+"/instructions", nil).decode(t, &got)
	for _, st := range got.Instructions {
		if st.StepType == models.StepTypeInstall || st.StepType == models.StepTypeInstallationDiskSpeedCheck {
			t.Errorf("host with a slow disk handed %s", st.StepType)
		}
	}
	// Garbage is refused and changes nothing.
	e.wantError(e.do(a.agent, "POST", a.path()+"/instructions", models.StepReply{StepID: step.StepID, StepType: step.StepType,
		Output: `{"io_sync_duration":"fast"}`}), 400, "installation-disk-speed-check output")
	if after := a.host(); after.DisksInfo != h.DisksInfo {
		t.Errorf("a refused reply changed disks_info to %q", after.DisksInfo)
	}
	// The user resets the validation, as upstream's reset-validation:
	// the disk counts as not measured and the host is known again.
	reset := a.path() + "/actions/reset-validation/"
	e.wantError(e.do(adminCred(), "PATCH", reset+"has-default-route", nil), 400, "cannot be reset")
	e.wantError(e.do(a.agent, "PATCH", reset+"sufficient-installation-disk-speed", nil), 403, "")
	e.must(adminCred(), 200, "PATCH", reset+"sufficient-installation-disk-speed", nil).decode(t, &h)
	if st, msg := validationOf(t, h, validation.HostSufficientInstallationDiskSpeed); st != validation.StatusSuccess ||
		msg != "Speed of installation disk has not yet been measured" || h.Status != models.HostStatusKnown {
		t.Errorf("after reset: host %s (%s), validation %s %q", h.Status, h.StatusInfo, st, msg)
	}
}

// A thresholds profile may relax the disk speed limit (slow test VMs); the
// step carries it.
func TestDiskSpeedThresholdFromProfile(t *testing.T) {
	slow, err := validation.DefaultThresholds().Override(validation.Thresholds{Profile: "slow-disks",
		Worker: validation.Requirements{CPUCores: 1, MemoryMiB: 1024, DiskGB: 10},
		Master: validation.Requirements{CPUCores: 1, MemoryMiB: 1024, DiskGB: 10}, SingleNode: validation.Requirements{CPUCores: 1, MemoryMiB: 1024, DiskGB: 10},
		DiskSpeedThresholdMs: 50})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnvWith(t, enginetest.NewStore(), func(*engine.Model, string) validation.Thresholds { return slow })
	gen := &stuckGenerator{stuck: map[string]bool{}}
	startController(t, e, gen, install.Options{PrepareTimeout: time.Hour})
	rk := readySNOWithHost(t, e, 1)
	gen.mu.Lock()
	gen.stuck[rk.cluster.ID] = true
	gen.mu.Unlock()
	e.must(adminCred(), 202, "POST", "/clusters/"+rk.cluster.ID+"/actions/install", nil)
	rk.waitCluster(engine.ClusterStatusPreparingForInstallation)
	a := rk.agents[0]
	var got models.Steps
	e.must(a.agent, 200, "GET", a.path()+"/instructions", nil).decode(t, &got)
	for _, st := range got.Instructions {
		if st.StepType == models.StepTypeInstallationDiskSpeedCheck {
			var req models.DiskSpeedCheckRequest
			if err := json.Unmarshal([]byte(st.Args[0]), &req); err != nil || req.ThresholdMs != 50 {
				t.Fatalf("request %s: %v, want the profile's 50 ms", st.Args[0], err)
			}
			return
		}
	}
	t.Fatalf("no installation-disk-speed-check in %+v", got.Instructions)
}
