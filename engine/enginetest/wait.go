package enginetest

import (
	"context"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine"
)

// WaitFor waits until cond holds on st's model, checking it again after
// every change st applies; it fails the test when 30 s pass first (a
// bound so that a broken controller fails, not a timing assertion).
func WaitFor(t testing.TB, st engine.Store, what string, cond func(m *engine.Model) bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	changes := st.Subscribe(ctx)
	for {
		ok := false
		st.Read(func(m *engine.Model) { ok = cond(m) })
		if ok {
			return
		}
		select {
		case _, open := <-changes:
			if !open && ctx.Err() == nil { // dropped for lagging: listen again
				changes = st.Subscribe(ctx)
			}
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}
