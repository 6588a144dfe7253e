package engine_test

import (
	"bytes"
	"testing"

	"github.com/rackboot/rackboot/engine"
)

// TestImageSetThresholds: an image set keeps its thresholds through the
// command codec and the model; thresholds that lower a minimum without a
// profile, or are negative, are refused and change nothing.
func TestImageSetThresholds(t *testing.T) {
	st := newStore()
	th := &engine.Thresholds{Profile: "testbed", Master: engine.Minimums{CPUCores: 2, MemoryMiB: 4096, DiskGB: 20}}
	cmd := &engine.PutImageSet{ImageSet: engine.ImageSet{Name: "small", Profile: "disc", Thresholds: th, Source: engine.ImageSetSourceConfig}}
	b, err := engine.Encode(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"thresholds":{"profile":"testbed","master":{"cpu_cores":2,"memory_mib":4096,"disk_gb":20}}`)) {
		t.Errorf("encoded: %s", b)
	}
	dec, err := engine.NewCodec().Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	must(t, st, dec)
	var got engine.ImageSet
	st.Read(func(m *engine.Model) { got, _ = m.ImageSet("small") })
	if got.Thresholds == nil || *got.Thresholds != *th || got.Source != engine.ImageSetSourceConfig {
		t.Errorf("stored %+v", got)
	}
	for name, bad := range map[string]engine.Thresholds{
		"no profile": {Worker: engine.Minimums{CPUCores: 1}},
		"tolerance":  {MemoryToleranceMiB: 500},
		"negative":   {Profile: "testbed", SingleNode: engine.Minimums{DiskGB: -1}},
	} {
		t.Run(name, func(t *testing.T) {
			expectErr(t, st, &engine.PutImageSet{ImageSet: engine.ImageSet{Name: "small", Thresholds: &bad}}, engine.ErrInvalid)
		})
	}
}

// TestBootImageSet: the cluster's image set when it names a profile, else
// the first image set of the infra-env's architecture with a profile.
func TestBootImageSet(t *testing.T) {
	st := newStore()
	must(t, st, &engine.PutImageSet{ImageSet: engine.ImageSet{Name: "b-x86", Profile: "p1"}})
	must(t, st, &engine.PutImageSet{ImageSet: engine.ImageSet{Name: "a-noprofile"}})
	must(t, st, &engine.PutImageSet{ImageSet: engine.ImageSet{Name: "c-arm", CPUArchitecture: "aarch64", Profile: "p2"}})
	must(t, st, &engine.PutImageSet{ImageSet: engine.ImageSet{Name: "d-x86", CPUArchitecture: "x86_64", Profile: "p3"}})
	must(t, st, &engine.CreateCluster{Cluster: engine.Cluster{ID: clID, Name: "c1", ImageSetRef: "d-x86"}})
	cases := []struct {
		ie   engine.InfraEnv
		want string
	}{
		{engine.InfraEnv{ID: ieID}, "b-x86"},
		{engine.InfraEnv{ID: ieID, CPUArchitecture: "arm64"}, "c-arm"},
		{engine.InfraEnv{ID: ieID, CPUArchitecture: "ppc64le"}, ""},
		{engine.InfraEnv{ID: ieID, CPUArchitecture: "arm64", ClusterID: clID}, "d-x86"},
	}
	st.Read(func(m *engine.Model) {
		for _, c := range cases {
			if is, _ := m.BootImageSet(c.ie); is.Name != c.want {
				t.Errorf("%+v: image set %q, want %q", c.ie, is.Name, c.want)
			}
		}
		c, _ := m.Cluster(clID)
		if is, _ := m.ClusterImageSet(c); is.Name != "d-x86" {
			t.Errorf("cluster image set %q", is.Name)
		}
		if is, _ := m.ClusterImageSet(engine.Cluster{}); is.Name != "b-x86" {
			t.Errorf("cluster without a reference: image set %q", is.Name)
		}
	})
}
