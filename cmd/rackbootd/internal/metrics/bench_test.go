package metrics

import (
	"context"
	"fmt"
	"testing"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/enginetest"
)

// BenchmarkGatherState10kHosts is one scrape's state collection over
// 10,000 hosts (the agents benchmark's size), which holds the model's read
// lock while it counts.
func BenchmarkGatherState10kHosts(b *testing.B) {
	st := enginetest.NewStore()
	ctx := context.Background()
	const ie = "aaaaaaaa-0000-4000-8000-000000000001"
	if _, err := st.Apply(ctx, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ie, Name: "rack"}}); err != nil {
		b.Fatal(err)
	}
	for i := range 10000 {
		h := engine.Host{ID: fmt.Sprintf("bbbbbbbb-0000-4000-8000-%012d", i), InfraEnvID: ie, Status: []string{"known", "discovering", "installing"}[i%3]}
		if _, err := st.Apply(ctx, &engine.RegisterHost{Host: h}); err != nil {
			b.Fatal(err)
		}
	}
	reg := New("bench")
	reg.MustRegister(NewState(st))
	b.ResetTimer()
	for b.Loop() {
		if _, err := reg.Gatherer().Gather(); err != nil {
			b.Fatal(err)
		}
	}
}
