package api

import (
	"context"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/ipxe"
)

// boot-order-control: a MAC whose host is installed boots its disk; any
// other gets the discovery chain.
func TestIPXEBootOrderControl(t *testing.T) {
	e := newMemEnv(t)
	ie := e.createInfraEnv("")
	agentFlow(t, e, ie.ID)
	script := func(mac string) string {
		return string(e.must(adminCred(), 200, "GET", "/infra-envs/"+ie.ID+
			"/downloads/files?file_name=ipxe-script&ipxe_script_type=boot-order-control&mac="+mac, nil).body)
	}
	if s := script("52-54-00-12-34-01"); !strings.Contains(s, "chain --autofree http://10.55.0.1:8080/boot/52-54-00-12-34-01/script.ipxe") {
		t.Errorf("discovering host's script:\n%s", s)
	}
	if _, err := e.store.Apply(context.Background(), &engine.SetHostStatus{ID: testHostID, Status: models.HostStatusInstalled}); err != nil {
		t.Fatal(err)
	}
	if s := script("52:54:00:12:34:01"); !strings.HasPrefix(s, "#!ipxe\n") || !strings.HasSuffix(s, strings.TrimPrefix(string(ipxe.ExitScript()), "#!ipxe")) || strings.Contains(s, "chain") {
		t.Errorf("installed host's script:\n%s", s)
	}
	if s := script("52:54:00:12:34:02"); !strings.Contains(s, "/boot/52-54-00-12-34-02/script.ipxe") {
		t.Errorf("unknown MAC's script:\n%s", s)
	}
	// A host being installed may not register again (the agent stops).
	e.wantError(e.do(cred{agent: e.agentConfig(ie.ID).Token}, "POST", "/infra-envs/"+ie.ID+"/hosts",
		models.HostCreateParams{HostID: testHostID}), 409, "cannot register again")
}

// A cluster that installs takes no registrations (409, the agent stops).
func TestRegisterWhileClusterInstalls(t *testing.T) {
	e := newMemEnv(t)
	c := e.createCluster()
	ie := e.createInfraEnv(c.ID)
	if _, err := e.store.Apply(context.Background(), &engine.SetClusterStatus{ID: c.ID, Status: "installing"}); err != nil {
		t.Fatal(err)
	}
	e.wantError(e.do(cred{agent: e.agentConfig(ie.ID).Token}, "POST", "/infra-envs/"+ie.ID+"/hosts",
		models.HostCreateParams{HostID: testHostID}), 409, "accepts no host registration")
}
