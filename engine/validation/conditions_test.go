package validation

import (
	"testing"

	"github.com/rackboot/rackboot/engine/models"
)

func TestAgentConditions(t *testing.T) {
	good := ValidateHost(goodHost(), DefaultThresholds())
	h := goodHost()
	h.Inventory.CPU.Count = 2
	bad := ValidateHost(h, DefaultThresholds())
	cases := []struct {
		name     string
		status   string
		approved bool
		rs       Results
		want     map[string]string // type -> "Status: message"
	}{
		{"known approved", models.HostStatusKnown, true, good, map[string]string{
			ConditionConnected:       "True: The agent's connection to the installation service is unimpaired",
			ConditionRequirementsMet: "True: The agent is ready to begin the installation",
			ConditionValidated:       "True: The agent's validations are passing",
			ConditionBound:           "True: The agent is bound to a cluster deployment",
		}},
		{"known not approved", models.HostStatusKnownUnbound, false, good, map[string]string{
			ConditionRequirementsMet: "False: The agent is not approved",
			ConditionBound:           "False: The agent is not bound to any cluster deployment",
		}},
		{"insufficient", models.HostStatusInsufficient, true, bad, map[string]string{
			ConditionValidated:       "False: The agent's validations are failing: Require at least 4 CPU cores for master role, found only 2",
			ConditionRequirementsMet: "False: The agent is not ready to begin the installation",
		}},
		{"disconnected", models.HostStatusDisconnected, true, good, map[string]string{
			ConditionConnected: "False: The agent has not contacted the installation service in some time, user action should be taken",
		}},
		{"installing", models.HostStatusInstallingInProgress, true, good, map[string]string{
			ConditionRequirementsMet: "True: Installation already started and is in progress",
		}},
		{"new", models.HostStatusDiscovering, false, nil, map[string]string{
			ConditionValidated: "Unknown: The agent's validations have not yet been calculated",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := map[string]string{}
			for _, c := range AgentConditions(tc.status, tc.approved, tc.rs) {
				got[c.Type] = c.Status + ": " + c.Message
			}
			for typ, want := range tc.want {
				if got[typ] != want {
					t.Errorf("%s = %q, want %q", typ, got[typ], want)
				}
			}
		})
	}
}
