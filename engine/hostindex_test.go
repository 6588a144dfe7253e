package engine_test

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/rackboot/rackboot/engine"
)

// checkIndex compares the ids the index yields with the ids a scan of
// every host finds, for each cluster and infra-env of the test.
func checkIndex(t *testing.T, step string, m *engine.Model) {
	t.Helper()
	ids := func(seq func(func(engine.Host) bool)) []string {
		var out []string
		seq(func(h engine.Host) bool { out = append(out, h.ID); return true })
		return out
	}
	scan := func(keep func(engine.Host) bool) []string {
		var out []string
		for h := range m.Hosts() {
			if keep(h) {
				out = append(out, h.ID)
			}
		}
		return out
	}
	for _, c := range []string{clID, "no-such-cluster"} {
		got, want := ids(m.HostsOfCluster(c)), scan(func(h engine.Host) bool { return h.ClusterID == c })
		if !slices.Equal(got, want) || m.ClusterHostCount(c) != len(want) {
			t.Errorf("%s: hosts of cluster %s = %v (count %d), want %v", step, c, got, m.ClusterHostCount(c), want)
		}
	}
	for _, ie := range []string{ieID, ie2ID} {
		got, want := ids(m.HostsOfInfraEnv(ie)), scan(func(h engine.Host) bool { return h.InfraEnvID == ie })
		if !slices.Equal(got, want) {
			t.Errorf("%s: hosts of infra-env %s = %v, want %v", step, ie, got, want)
		}
	}
}

// The host index follows registration, binding, unbinding and deletion,
// a clone keeps its own view, and a snapshot restores it.
func TestHostIndex(t *testing.T) {
	st := newStore()
	must(t, st, &engine.CreateCluster{Cluster: engine.Cluster{ID: clID, Name: "c1"}})
	must(t, st, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ieID, Name: "late"}})
	must(t, st, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ie2ID, Name: "bound", ClusterID: clID}})
	host := func(i int) string { return fmt.Sprintf("44444444-4444-4444-8444-%012d", i) }
	// Registered out of id order, in both infra-envs.
	for _, i := range []int{5, 2, 9, 1, 7} {
		ie := ieID
		if i%2 == 1 {
			ie = ie2ID
		}
		must(t, st, &engine.RegisterHost{Host: engine.Host{ID: host(i), InfraEnvID: ie, Status: "discovering"}})
	}
	var before *engine.Model
	st.Read(func(m *engine.Model) { checkIndex(t, "registered", m); before = m.Clone() })

	must(t, st, &engine.BindHost{ID: host(2), ClusterID: clID})
	must(t, st, &engine.BindHost{ID: host(5), ClusterID: clID})
	must(t, st, &engine.DeleteHost{ID: host(9)})
	must(t, st, &engine.UnbindHost{ID: host(2)})
	must(t, st, &engine.SetHostStatus{ID: host(5), Status: "known"})
	st.Read(func(m *engine.Model) { checkIndex(t, "changed", m) })
	must(t, st, &engine.RegisterHost{Host: engine.Host{ID: host(9), InfraEnvID: ieID, Status: "discovering"}})

	var snap bytes.Buffer
	st.Read(func(m *engine.Model) {
		checkIndex(t, "re-registered", m)
		if got := m.ClusterHostCount(clID); got != 3 {
			t.Errorf("cluster has %d hosts, want 3 (1, 5, 7: 2 was unbound, 9 came back unbound)", got)
		}
		if _, err := m.WriteTo(&snap); err != nil {
			t.Fatal(err)
		}
	})
	checkIndex(t, "clone taken before the changes", before)
	if got := before.ClusterHostCount(clID); got != 4 {
		t.Errorf("clone: cluster has %d hosts, want 4 (the odd ones, of the bound infra-env)", got)
	}
	m, err := engine.ReadModel(&snap)
	if err != nil {
		t.Fatal(err)
	}
	checkIndex(t, "restored", m)
}
