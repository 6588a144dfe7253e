package api

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rackboot/rackboot/boot/installer"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/install"
)

// stuckGenerator never finishes the clusters it holds (until its context
// ends); the others get fakeGenerator's artifacts.
type stuckGenerator struct {
	mu    sync.Mutex
	stuck map[string]bool // cluster ids
}

func (g *stuckGenerator) Generate(ctx context.Context, c installer.Cluster) (*installer.Artifacts, error) {
	g.mu.Lock()
	stuck := g.stuck[c.ID]
	g.mu.Unlock()
	if stuck {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return fakeGenerator{}.Generate(ctx, c)
}

// readySNOWithHost is a ready single-node cluster whose host is host i
// (so that two racks of one env have different hosts).
func readySNOWithHost(t *testing.T, e *env, i int) *rack {
	t.Helper()
	rk := newRack(t, e, 1, 0)
	rk.add(i)
	rk.discover()
	rk.approveAll("master")
	rk.discover()
	if c := rk.get(); c.Status != engine.ClusterStatusReady {
		t.Fatalf("cluster %q (%s): %s", c.Status, c.StatusInfo, c.ValidationsInfo)
	}
	return rk
}

// A cluster whose configs take long to generate does not hold up another
// cluster's installation: the controller prepares each in its own
// goroutine.
func TestSlowPreparationDoesNotBlockOthers(t *testing.T) {
	e := newMemEnv(t)
	gen := &stuckGenerator{stuck: map[string]bool{}}
	startController(t, e, gen, install.Options{PrepareTimeout: time.Hour})
	slow := readySNOWithHost(t, e, 1)
	gen.mu.Lock()
	gen.stuck[slow.cluster.ID] = true
	gen.mu.Unlock()
	e.must(adminCred(), 202, "POST", "/clusters/"+slow.cluster.ID+"/actions/install", nil)
	slow.waitCluster(engine.ClusterStatusPreparingForInstallation)
	fast := readySNOWithHost(t, e, 2)
	e.must(adminCred(), 202, "POST", "/clusters/"+fast.cluster.ID+"/actions/install", nil)
	fast.waitCluster(engine.ClusterStatusInstalling)
	if c := slow.get(); c.Status != engine.ClusterStatusPreparingForInstallation {
		t.Fatalf("the slow cluster is %s (%s), want still preparing", c.Status, c.StatusInfo)
	}
}

// A preparation that outlasts PrepareTimeout puts the cluster in error
// with the reason, and its host in preparing-failed.
func TestPreparationTimesOut(t *testing.T) {
	e := newMemEnv(t)
	gen := &stuckGenerator{stuck: map[string]bool{}}
	startController(t, e, gen, install.Options{PrepareTimeout: 300 * time.Millisecond})
	rk := readySNOWithHost(t, e, 1)
	gen.mu.Lock()
	gen.stuck[rk.cluster.ID] = true
	gen.mu.Unlock()
	e.must(adminCred(), 202, "POST", "/clusters/"+rk.cluster.ID+"/actions/install", nil)
	c := rk.waitCluster(engine.ClusterStatusError)
	if !strings.Contains(c.StatusInfo, "timed out after 300ms") {
		t.Errorf("status info %q", c.StatusInfo)
	}
	if h := rk.agents[0].host(); h.Status != "preparing-failed" {
		t.Errorf("host %s (%s), want preparing-failed", h.Status, h.StatusInfo)
	}
}
