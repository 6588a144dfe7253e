package api

import (
	"context"
	"testing"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/enginetest"
	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/engine/validation"
)

// TestImageSetThresholds: the same small VM inventory (2 cores, 2 GiB)
// passes the hardware validations while the infra-env's image set carries
// an explicit testbed profile, and fails them against upstream's minimums
// once the image set it boots has no thresholds (the daemon's here are
// upstream's).
func TestImageSetThresholds(t *testing.T) {
	st := enginetest.NewStore()
	e := newEnvWith(t, st, nil)
	testbed := &engine.Thresholds{Profile: "testbed",
		Master: engine.Minimums{CPUCores: 2, MemoryMiB: 1536, DiskGB: 15},
		Worker: engine.Minimums{CPUCores: 1, MemoryMiB: 1024, DiskGB: 15}}
	putImageSet(t, st, engine.ImageSet{Name: "a-testbed", Profile: "discovery", Thresholds: testbed})
	ie := e.createInfraEnv("")
	h := agentFlow(t, e, ie.ID)
	if h.Status != models.HostStatusKnownUnbound {
		t.Errorf("with the testbed image set: host %q (%s), want %q", h.Status, h.StatusInfo, models.HostStatusKnownUnbound)
	}
	wantHW(t, h, validation.StatusSuccess)

	// The infra-env now boots an image set without thresholds (the one
	// with them moved to another architecture).
	putImageSet(t, st, engine.ImageSet{Name: "a-testbed", CPUArchitecture: "arm64", Profile: "discovery", Thresholds: testbed})
	putImageSet(t, st, engine.ImageSet{Name: "b-upstream", Profile: "discovery"})
	path := "/infra-envs/" + ie.ID + "/hosts/" + testHostID
	e.must(adminCred(), 201, "PATCH", path, map[string]any{"host_name": "vm1"}).decode(t, &h)
	if h.Status != models.HostStatusInsufficientUnbound {
		t.Errorf("with upstream's minimums: host %q (%s), want %q", h.Status, h.StatusInfo, models.HostStatusInsufficientUnbound)
	}
	wantHW(t, h, validation.StatusFailure)
}

func putImageSet(t *testing.T, st engine.Store, is engine.ImageSet) {
	t.Helper()
	if _, err := st.Apply(context.Background(), &engine.PutImageSet{ImageSet: is}); err != nil {
		t.Fatal(err)
	}
}

// wantHW checks the host's memory and disk validations.
func wantHW(t *testing.T, h models.APIHost, want validation.Status) {
	t.Helper()
	info, err := validation.ParseInfo(h.ValidationsInfo)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]validation.Status{}
	for _, r := range info[validation.CategoryHardware] {
		got[string(r.ID)] = r.Status
	}
	for _, id := range []string{"has-min-memory", "has-min-valid-disks"} {
		if got[id] != want {
			t.Errorf("%s = %q, want %q (%v)", id, got[id], want, got)
		}
	}
}
