package api

import (
	"context"
	"testing"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
)

// A host whose installation is being prepared or runs polls every
// InstallPollSeconds, so its install step does not wait a minute; other
// hosts keep upstream's 60 s.
func TestPollIntervalWhileInstalling(t *testing.T) {
	e := newMemEnv(t)
	ie := e.createInfraEnv("")
	agentFlow(t, e, ie.ID) // polls at 60 s while discovered
	agent := cred{agent: e.agentConfig(ie.ID).Token}
	path := "/infra-envs/" + ie.ID + "/hosts/" + testHostID + "/instructions"
	for status, want := range map[string]int64{
		models.HostStatusPreparingForInstallation: InstallPollSeconds,
		models.HostStatusInstallingInProgress:     InstallPollSeconds,
		models.HostStatusInstalled:                DefaultPollSeconds,
		models.HostStatusKnown:                    DefaultPollSeconds,
	} {
		if _, err := e.store.Apply(context.Background(), &engine.SetHostStatus{ID: testHostID, Status: status}); err != nil {
			t.Fatal(err)
		}
		var steps models.Steps
		e.must(agent, 200, "GET", path, nil).decode(t, &steps)
		if steps.NextInstructionSeconds != want {
			t.Errorf("host %s: next_instruction_seconds %d, want %d", status, steps.NextInstructionSeconds, want)
		}
	}
}
