package steps_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/cmd/rackboot-agent/steps"
	"github.com/rackboot/rackboot/engine/models"
)

func TestUnknownStepType(t *testing.T) {
	r := steps.NewRunner(steps.Deps{})
	rep := r.Run(context.Background(), &models.Step{StepID: "logs-0badc0de", StepType: models.StepTypeLogsGather, Args: []string{"{}"}})
	if rep.ExitCode != steps.ExitUnsupported || rep.StepID != "logs-0badc0de" || rep.StepType != models.StepTypeLogsGather ||
		!strings.Contains(rep.Error, `cannot run step type "logs-gather"`) || rep.Output != "" {
		t.Fatalf("%+v", rep)
	}
}

func TestStepTimeout(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	r := &steps.Runner{
		Executors: map[models.StepType]steps.Executor{
			"stuck": func(ctx context.Context, _ []string) (string, error) { <-release; return "late", nil },
		},
		Timeouts: map[models.StepType]time.Duration{"stuck": 10 * time.Millisecond},
	}
	rep := r.Run(context.Background(), &models.Step{StepID: "stuck-1", StepType: "stuck"})
	if rep.ExitCode != steps.ExitTimeout || rep.Output != "" || !strings.Contains(rep.Error, "did not finish") {
		t.Fatalf("%+v", rep)
	}
}

func TestInventoryStep(t *testing.T) {
	r := steps.NewRunner(steps.Deps{})
	rep := r.Run(context.Background(), &models.Step{StepID: "inventory-1", StepType: models.StepTypeInventory, Args: []string{"0d8e5b2a-aaaa-bbbb-cccc-ddddeeeeffff"}})
	if rep.ExitCode != 0 {
		t.Fatalf("%+v", rep)
	}
	var inv models.Inventory
	if err := json.Unmarshal([]byte(rep.Output), &inv); err != nil {
		t.Fatal(err)
	}
	// This machine's real inventory: it has CPUs, memory and a loopback-less NIC list.
	if inv.CPU == nil || inv.CPU.Count < 1 || inv.Memory == nil || inv.Memory.PhysicalBytes <= 0 {
		t.Fatalf("inventory %s", rep.Output)
	}
	bad := r.Run(context.Background(), &models.Step{StepID: "inventory-2", StepType: models.StepTypeInventory, Args: []string{"a", "b"}})
	if bad.ExitCode != steps.ExitFailed || !strings.Contains(bad.Error, "at most one argument") {
		t.Fatalf("%+v", bad)
	}
}

func TestBadArguments(t *testing.T) {
	r := steps.NewRunner(steps.Deps{})
	for _, st := range []*models.Step{
		{StepID: "c-1", StepType: models.StepTypeConnectivityCheck},
		{StepID: "c-2", StepType: models.StepTypeConnectivityCheck, Args: []string{`{"not":"a list"}`}},
		{StepID: "c-3", StepType: models.StepTypeConnectivityCheck, Args: []string{`[{"host_id":"h","nics":[{"ip_addresses":["300.1.1.1"]}]}]`}},
		{StepID: "d-1", StepType: models.StepTypeDomainResolution, Args: []string{`{"domains":[{"domain_name":"a b.example"}]}`}},
		{StepID: "d-2", StepType: models.StepTypeDomainResolution, Args: []string{`{"domains":[{"domain_name":"` + strings.Repeat("a", 64) + `.example"}]}`}},
		{StepID: "d-3", StepType: models.StepTypeDomainResolution, Args: []string{`not json`}},
		{StepID: "n-1", StepType: models.StepTypeNtpSynchronizer, Args: []string{`{"ntp_source": 5}`}},
		{StepID: "n-2", StepType: models.StepTypeNtpSynchronizer, Args: []string{`{"ntp_source": "pool.ntp.org;rm -rf"}`}},
		{StepID: "n-3", StepType: models.StepTypeNtpSynchronizer, Args: []string{`{"ntp_source": "127.0.0.1:99999"}`}},
	} {
		rep := r.Run(context.Background(), st)
		if rep.ExitCode != steps.ExitFailed || !strings.Contains(rep.Error, "bad arguments") {
			t.Errorf("%s: %+v", st.StepID, rep)
		}
	}
}
