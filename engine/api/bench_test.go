package api

import (
	"fmt"
	"testing"

	"github.com/rackboot/rackboot/engine/enginetest"
	"github.com/rackboot/rackboot/engine/models"
)

// BenchmarkRegisterAndInventory measures one agent's registration, first
// poll and inventory reply over HTTP against the in-memory store, and
// reports the store writes each host costs.
func BenchmarkRegisterAndInventory(b *testing.B) {
	store := enginetest.NewStore()
	e := newEnv(b, store)
	c := e.createCluster()
	ie := e.createInfraEnv(c.ID)
	agent := cred{agent: e.agentConfig(ie.ID).Token}
	inv := inventory(b)
	start := store.Entries()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id := fmt.Sprintf("52540000-aabb-0001-0000-%012x", i+16)
		e.must(agent, 201, "POST", "/infra-envs/"+ie.ID+"/hosts", models.HostCreateParams{HostID: id})
		path := "/infra-envs/" + ie.ID + "/hosts/" + id + "/instructions"
		e.must(agent, 200, "GET", path, nil)
		e.must(agent, 204, "POST", path, models.StepReply{StepType: models.StepTypeInventory, Output: inv})
	}
	b.ReportMetric(float64(store.Entries()-start)/float64(b.N), "writes/host")
}
