package engine_test

import (
	"context"
	"testing"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/enginetest"
)

// flipStore is a Store whose leadership the test drives.
type flipStore struct {
	*enginetest.Store
	ch chan bool
}

func (f flipStore) LeaderChanges(ctx context.Context) <-chan bool { return f.ch }

func TestWhileLeader(t *testing.T) {
	st := flipStore{Store: newStore(), ch: make(chan bool)}
	started, stopped := make(chan struct{}), make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		engine.WhileLeader(ctx, st, func(ctx context.Context) {
			started <- struct{}{}
			<-ctx.Done()
			stopped <- struct{}{}
		})
	}()
	st.ch <- false // not leading: nothing runs
	st.ch <- true
	<-started
	st.ch <- true // still leading: no second copy
	st.ch <- false
	<-stopped
	st.ch <- true
	<-started
	close(st.ch) // the feed ends: the running copy is stopped
	<-stopped
	<-done
}

func TestApplyAs(t *testing.T) {
	st := newStore()
	ie, err := engine.ApplyAs[engine.InfraEnv](context.Background(), st, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ieID, Name: "x"}})
	if err != nil || ie.ID != ieID {
		t.Errorf("ApplyAs = %+v, %v", ie, err)
	}
	if _, err := engine.ApplyAs[engine.InfraEnv](context.Background(), st, &engine.DeleteInfraEnv{ID: ie2ID}); err == nil {
		t.Error("no error for a missing infra-env")
	}
}
