package api

import (
	"context"
	"testing"
	"time"

	"github.com/rackboot/rackboot/cluster"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
)

// The single-node installation on the replicated store (a one-voter raft
// cluster): installed, and still installed with its credentials after the
// store is closed and opened again.
func TestInstallFlowRaft(t *testing.T) {
	dir := t.TempDir()
	open := func() *cluster.Store {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		s, err := cluster.Open(ctx, cluster.Config{DataDir: dir, HeartbeatTimeout: 50 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := open()
	e := newEnv(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		engine.WhileLeader(ctx, s, func(ctx context.Context) {
			runControllerCtx(ctx, t, e, fakeGenerator{})
		})
	}()
	rk := readyRack(t, e, 1, 0)
	e.must(adminCred(), 202, "POST", "/clusters/"+rk.cluster.ID+"/actions/install", nil)
	rk.installAll()
	rk.checkInstalled()
	cancel()
	<-done
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = open()
	t.Cleanup(func() { _ = s.Close() })
	e2 := newEnv(t, s)
	var c models.Cluster
	e2.must(adminCred(), 200, "GET", "/clusters/"+rk.cluster.ID, nil).decode(t, &c)
	if c.Status != engine.ClusterStatusInstalled || c.InstallCompletedAt.IsZero() {
		t.Errorf("after restart: %q completed %v", c.Status, c.InstallCompletedAt)
	}
	if r := e2.must(adminCred(), 200, "GET", "/clusters/"+rk.cluster.ID+"/downloads/credentials?file_name=kubeadmin-password", nil); string(r.body) != testKubePass {
		t.Errorf("kubeadmin-password after restart %q", r.body)
	}
}
