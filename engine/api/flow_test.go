package api

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/engine/enginetest"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/engine/validation"
)

// agentFlow registers testHostID as the agent does, follows the inventory
// step and returns the host after its inventory.
func agentFlow(t *testing.T, e *env, ieID string) models.APIHost {
	t.Helper()
	ac := e.agentConfig(ieID)
	if ac.InfraEnvID != ieID || ac.ServiceURL != e.srv.URL || ac.Token == "" {
		t.Fatalf("agent config %+v", ac)
	}
	agent := cred{agent: ac.Token}
	var reg models.HostRegistrationResponse
	e.must(agent, 201, "POST", "/infra-envs/"+ieID+"/hosts",
		models.HostCreateParams{HostID: testHostID, DiscoveryAgentVersion: "rackboot-agent/test"}).decode(t, &reg)
	if reg.NextStepRunnerCommand == nil || len(reg.NextStepRunnerCommand.Args) != 1 {
		t.Fatalf("next_step_runner_command %+v", reg.NextStepRunnerCommand)
	}
	var cmd models.NextStepCmdRequest
	if err := json.Unmarshal([]byte(reg.NextStepRunnerCommand.Args[0]), &cmd); err != nil {
		t.Fatal(err)
	}
	if cmd != (models.NextStepCmdRequest{AgentVersion: "rackboot-agent/test", HostID: testHostID, InfraEnvID: ieID}) {
		t.Errorf("runner args %+v", cmd)
	}
	if !strings.HasPrefix(reg.Status, models.HostStatusDiscovering) || reg.StatusInfo != validation.StatusInfoDiscovering {
		t.Errorf("registered host is %q (%q)", reg.Status, reg.StatusInfo)
	}

	var steps models.Steps
	path := "/infra-envs/" + ieID + "/hosts/" + testHostID + "/instructions"
	e.must(agent, 200, "GET", path+"?timestamp=1700000000", nil).decode(t, &steps)
	if len(steps.Instructions) < 2 || steps.Instructions[0].StepType != models.StepTypeInventory ||
		len(steps.Instructions[0].Args) != 1 || steps.Instructions[0].Args[0] != testHostID ||
		!strings.HasPrefix(steps.Instructions[0].StepID, "inventory-") || steps.NextInstructionSeconds != 60 {
		t.Fatalf("steps %+v", steps)
	}
	// The periodic steps come with the first instructions; this flow
	// answers only the inventory.
	for _, st := range steps.Instructions[1:] {
		if !slices.Contains(hosts.PeriodicStepTypes(), st.StepType) || len(st.Args) != 1 || !strings.HasPrefix(st.StepID, string(st.StepType)+"-") {
			t.Errorf("periodic step %+v", st)
		}
	}
	e.must(agent, 204, "POST", path, models.StepReply{StepID: steps.Instructions[0].StepID,
		StepType: models.StepTypeInventory, Output: inventory(t)})

	// Polling again within the step interval, with nothing changed,
	// hands out nothing.
	e.must(agent, 200, "GET", path, nil).decode(t, &steps)
	if len(steps.Instructions) != 0 || steps.NextInstructionSeconds != 60 || steps.PostStepAction != "continue" {
		t.Errorf("steps after inventory %+v", steps)
	}
	var h models.APIHost
	e.must(agent, 200, "GET", "/infra-envs/"+ieID+"/hosts/"+testHostID, nil).decode(t, &h)
	return h
}

// checkDiscovered checks a host after its inventory: out of discovering,
// with validations and its inventory.
func checkDiscovered(t *testing.T, h models.APIHost, want ...string) {
	t.Helper()
	if !strings.Contains(strings.Join(want, " "), h.Status) {
		t.Errorf("host status %q (%s), want one of %v", h.Status, h.StatusInfo, want)
	}
	info, err := validation.ParseInfo(h.ValidationsInfo)
	if err != nil || len(info[validation.CategoryHardware]) == 0 {
		t.Errorf("validations_info %q: %v", h.ValidationsInfo, err)
	}
	var inv models.Inventory
	if err := json.Unmarshal([]byte(h.Inventory), &inv); err != nil || inv.CPU == nil || inv.CPU.Count != 2 {
		t.Errorf("inventory not stored: %v", err)
	}
	if h.InstallationDiskID == "" {
		t.Errorf("no installation disk chosen")
	}
}

// runBoundFlow is the whole flow of a host of an infra-env bound to a
// cluster; it returns the ids.
func runBoundFlow(t *testing.T, e *env) (clusterID, ieID string) {
	c := e.createCluster()
	if c.Status != validation.ClusterStatusPendingForInput && c.Status != validation.ClusterStatusInsufficient {
		t.Errorf("new cluster status %q", c.Status)
	}
	ie := e.createInfraEnv(c.ID)
	h := agentFlow(t, e, ie.ID)
	checkDiscovered(t, h, models.HostStatusKnown, models.HostStatusInsufficient, models.HostStatusPendingForInput)
	if h.ClusterID != c.ID {
		t.Errorf("host cluster %q, want %q", h.ClusterID, c.ID)
	}

	var upd models.APIHost
	e.must(adminCred(), 201, "PATCH", "/infra-envs/"+ie.ID+"/hosts/"+testHostID, map[string]any{
		"approved": true, "host_role": "master", "host_name": "node-1",
	}).decode(t, &upd)
	if !upd.Approved || upd.Role != models.HostRoleMaster || upd.RequestedHostname != "node-1" {
		t.Errorf("patched host approved=%t role=%q hostname=%q", upd.Approved, upd.Role, upd.RequestedHostname)
	}

	var evs []models.Event
	e.must(adminCred(), 200, "GET", "/events?host_id="+testHostID, nil).decode(t, &evs)
	names := map[string]bool{}
	for _, ev := range evs {
		names[ev.Name] = true
		if ev.HostID != testHostID {
			t.Errorf("event of host %q in a host_id query", ev.HostID)
		}
	}
	for _, n := range []string{"host_registration_succeeded", "host_inventory_received", "host_status_updated", "host_updated"} {
		if !names[n] {
			t.Errorf("no %s event among %v", n, names)
		}
	}
	return c.ID, ie.ID
}

func TestBoundFlowInMemory(t *testing.T) {
	e := newMemEnv(t)
	runBoundFlow(t, e)
}

// An auto-assign host of a cluster shows the role the engine suggests.
func TestSuggestedRole(t *testing.T) {
	e := newMemEnv(t)
	c := e.createCluster()
	ie := e.createInfraEnv(c.ID)
	agentFlow(t, e, ie.ID)
	var h models.APIHost
	e.must(adminCred(), 200, "GET", "/infra-envs/"+ie.ID+"/hosts/"+testHostID, nil).decode(t, &h)
	if h.Role != models.HostRoleAutoAssign || h.SuggestedRole != models.HostRoleMaster {
		t.Errorf("role %q suggested %q, want auto-assign and master (the cluster wants 3 masters)", h.Role, h.SuggestedRole)
	}
}

// high_availability_mode None makes a single-node cluster.
func TestSingleNodeCluster(t *testing.T) {
	e := newMemEnv(t)
	var c models.Cluster
	e.must(adminCred(), 201, "POST", "/clusters", map[string]any{"name": "sno", "openshift_version": "4.17",
		"pull_secret": testPullSecret, "high_availability_mode": "None"}).decode(t, &c)
	if c.ControlPlaneCount != 1 || c.HighAvailabilityMode != "None" {
		t.Errorf("control plane %d, mode %q", c.ControlPlaneCount, c.HighAvailabilityMode)
	}
	e.wantError(e.do(adminCred(), "POST", "/clusters", map[string]any{"name": "x", "openshift_version": "4.17",
		"pull_secret": testPullSecret, "high_availability_mode": "Half"}), 400, "high_availability_mode")
}

// A single-node cluster's only host is suggested master, as upstream, even
// before its inventory and even when (a small VM) it falls short of the
// single-node minimums, which its role validation then reports; the
// cluster counts it as its control plane.
func TestSingleNodeHostSuggestedMaster(t *testing.T) {
	e := newEnvWith(t, enginetest.NewStore(), nil) // upstream's minimums
	var c models.Cluster
	e.must(adminCred(), 201, "POST", "/clusters", map[string]any{"name": "sno", "openshift_version": "4.17",
		"pull_secret": testPullSecret, "high_availability_mode": "None", "base_dns_domain": "example.com"}).decode(t, &c)
	ie := e.createInfraEnv(c.ID)
	tok := e.agentConfig(ie.ID).Token
	e.must(cred{agent: tok}, 201, "POST", "/infra-envs/"+ie.ID+"/hosts", models.HostCreateParams{HostID: testHostID})
	var h models.APIHost
	e.must(adminCred(), 200, "GET", "/infra-envs/"+ie.ID+"/hosts/"+testHostID, nil).decode(t, &h)
	if h.Role != models.HostRoleAutoAssign || h.SuggestedRole != models.HostRoleMaster {
		t.Errorf("before its inventory: role %q suggested %q, want auto-assign and master", h.Role, h.SuggestedRole)
	}
	h = agentFlow(t, e, ie.ID)
	if h.Role != models.HostRoleAutoAssign || h.SuggestedRole != models.HostRoleMaster {
		t.Errorf("after its inventory: role %q suggested %q, want auto-assign and master", h.Role, h.SuggestedRole)
	}
	if st, msg := validationOf(t, h, validation.HostHasCPUCoresForRole); st != validation.StatusFailure ||
		!strings.Contains(msg, "8 CPU cores") {
		t.Errorf("has-cpu-cores-for-role %s %q, want a failure naming the single-node minimum (8 CPU cores)", st, msg)
	}
	e.must(adminCred(), 200, "GET", "/clusters/"+c.ID, nil).decode(t, &c)
	info, err := validation.ParseInfo(c.ValidationsInfo)
	if err != nil {
		t.Fatal(err)
	}
	for _, rs := range info {
		for _, r := range rs {
			if r.ID == validation.ClusterSufficientMastersCount && r.Status != validation.StatusSuccess {
				t.Errorf("sufficient-masters-count %s %q", r.Status, r.Message)
			}
		}
	}
}
