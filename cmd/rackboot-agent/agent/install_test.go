package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/rackboot/rackboot/cmd/rackboot-agent/agent"
	"github.com/rackboot/rackboot/cmd/rackboot-agent/steps"
	"github.com/rackboot/rackboot/engine/models"
)

// installRunner answers install steps with a canned result and the rest
// with the real runner, tracking how many steps run at once.
type installRunner struct {
	real    agent.StepRunner
	result  steps.InstallResult
	fail    bool
	mu      sync.Mutex
	running int
	overlap bool // another step ran while an install did
	order   []models.StepType
}

func (r *installRunner) Run(ctx context.Context, st *models.Step) *models.StepReply {
	r.mu.Lock()
	r.running++
	if r.running > 1 && (st.StepType == models.StepTypeInstall || r.order[len(r.order)-1] == models.StepTypeInstall) {
		r.overlap = true
	}
	r.order = append(r.order, st.StepType)
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.running--
		r.mu.Unlock()
	}()
	if st.StepType != models.StepTypeInstall {
		return r.real.Run(ctx, st)
	}
	if r.fail {
		return &models.StepReply{StepID: st.StepID, StepType: st.StepType, ExitCode: steps.ExitFailed, Error: "disk image sha256 mismatch"}
	}
	out, _ := json.Marshal(r.result)
	return &models.StepReply{StepID: st.StepID, StepType: st.StepType, Output: string(out)}
}

func installBatch() models.Steps {
	return models.Steps{Instructions: []*models.Step{
		{StepID: "install-00000001", StepType: models.StepTypeInstall, Args: []string{"{}"}},
		inventoryStep("inventory-00000002"),
	}}
}

func TestInstallRunsAloneThenReboots(t *testing.T) {
	h := newHarness(t, "")
	runner := &installRunner{real: h.agent.Steps, result: steps.InstallResult{BootDevice: "/dev/vda", Reboot: true}}
	h.agent.Steps = runner
	var repliesAtReboot []models.StepReply
	h.agent.Reboot = func(context.Context) error {
		repliesAtReboot = h.svc.Replies()
		return nil
	}
	h.svc.Push(installBatch())
	if err := h.agent.Run(h.stopAfter(1)); !errors.Is(err, agent.ErrRebooted) {
		t.Fatalf("Run: %v", err)
	}
	if runner.overlap || len(runner.order) != 2 || runner.order[1] != models.StepTypeInstall {
		t.Fatalf("steps ran %v (overlap %t): install must run last and alone", runner.order, runner.overlap)
	}
	if len(repliesAtReboot) != 2 || repliesAtReboot[1].StepID != "install-00000001" || repliesAtReboot[1].ExitCode != 0 {
		t.Fatalf("replies sent before the reboot: %+v", repliesAtReboot)
	}
}

func TestInstallWithoutRebootKeepsPolling(t *testing.T) {
	for name, r := range map[string]*installRunner{
		"external reboot": {result: steps.InstallResult{Reboot: false}},
		"failed":          {fail: true},
	} {
		h := newHarness(t, "")
		r.real = h.agent.Steps
		h.agent.Steps = r
		rebooted := false
		h.agent.Reboot = func(context.Context) error { rebooted = true; return nil }
		h.svc.Push(installBatch())
		if err := h.agent.Run(h.stopAfter(2)); !errors.Is(err, context.Canceled) || rebooted {
			t.Fatalf("%s: Run %v, rebooted %t", name, err, rebooted)
		}
		if n := len(h.svc.Replies()); n != 2 {
			t.Fatalf("%s: %d replies", name, n)
		}
	}
}

func TestInstallRebootFailureKeepsPolling(t *testing.T) {
	h := newHarness(t, "")
	h.agent.Steps = &installRunner{real: h.agent.Steps, result: steps.InstallResult{Reboot: true}}
	h.agent.Reboot = func(context.Context) error { return errors.New("reboot: operation not permitted") }
	h.svc.Push(installBatch())
	if err := h.agent.Run(h.stopAfter(1)); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v", err)
	}
	// Without a reboot function the agent must not reboot either.
	h = newHarness(t, "")
	h.agent.Steps = &installRunner{real: h.agent.Steps, result: steps.InstallResult{Reboot: true}}
	h.svc.Push(installBatch())
	if err := h.agent.Run(h.stopAfter(1)); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run without Reboot: %v", err)
	}
}

func TestRepeatedInstallRepliesAreSent(t *testing.T) {
	h := newHarness(t, "")
	h.agent.Steps = &installRunner{real: h.agent.Steps, result: steps.InstallResult{BootDevice: "/dev/vda", Reboot: true}}
	h.agent.Reboot = func(context.Context) error { return errors.New("reboot refused") }
	install := func(id string) models.Steps {
		return models.Steps{Instructions: []*models.Step{{StepID: id, StepType: models.StepTypeInstall, Args: []string{"{}"}}}}
	}
	h.svc.Push(install("install-00000001"), install("install-00000002"))
	if err := h.agent.Run(h.stopAfter(2)); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v", err)
	}
	if n := len(h.svc.Replies()); n != 2 {
		t.Fatalf("%d install replies sent, want both (identical outputs are not deduplicated for install)", n)
	}
}
