package cluster

import (
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine"
)

// A rack closed right after a write forwarded from a follower closes: the
// leader's nudge (a barrier appended for the follower's sake) does not
// hold Close up when raft shuts down under it.
func TestCloseRightAfterForwardedWrite(t *testing.T) {
	for round := range 8 {
		r := newRack(t, 3)
		r.start(r.nodes...)
		ld := r.leader()
		fw := r.followers(ld)[0]
		must(t, fw.st, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: uuid(round + 1), Name: "ie"}})
		closed := make(chan struct{})
		go func() {
			for _, nd := range r.nodes {
				nd.st.Close()
			}
			close(closed)
		}()
		select {
		case <-closed:
		case <-time.After(60 * time.Second):
			t.Fatalf("round %d: the rack did not close within a minute", round)
		}
	}
}
