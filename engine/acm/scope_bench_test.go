package acm_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/acm"
)

// BenchmarkHostChangePass is the pass after one host's change among
// 10,000 settled Agents (bench/agents -kube's case): its cost should not
// grow with the Agents the change does not concern.
func BenchmarkHostChangePass(b *testing.B) {
	ids := hostIDs(10000)
	_, o := withAgents(b, acm.WithMemo, ids...)
	ctx := context.Background()
	b.ResetTimer()
	for i := range b.N {
		acm.Pass(ctx, o, []engine.Change{{Kind: engine.KindHost, ID: ids[i%len(ids)]}})
	}
}

// BenchmarkFullPass is a full pass over 10,000 settled Agents.
func BenchmarkFullPass(b *testing.B) {
	ids := hostIDs(10000)
	_, o := withAgents(b, acm.WithMemo, ids...)
	ctx := context.Background()
	b.ResetTimer()
	for range b.N {
		acm.Pass(ctx, o, []engine.Change{{Kind: engine.KindAll}})
	}
}

// hostIDs is n distinct host ids.
func hostIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("5241434b-c69b-4000-8000-%012x", i)
	}
	return ids
}
