package api

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/boot/installer"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/clusters"
	"github.com/rackboot/rackboot/engine/enginetest"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/models"
)

// FuzzProgressBody feeds arbitrary PUT .../progress bodies to the decoder,
// the check and the engine: each is refused as a bad request (or a stage
// that would go back or into an unknown status) or recorded; a recorded
// stage never moves the host backwards and nothing panics.
func FuzzProgressBody(f *testing.F) {
	for _, seed := range []string{`{"current_stage":"Starting installation"}`,
		`{"current_stage":"Writing image to disk","progress_info":"42%"}`, `{"current_stage":"Failed","progress_info":"sha256 mismatch"}`,
		`{"current_stage":"Done"}`, `{"current_stage":"Installing","progress_info":"\u0007"}`, `{"current_stage":7}`, `[]`, `{}`, `null`,
		`{"current_stage":"Rebooting"} x`} {
		f.Add([]byte(seed))
	}
	const ie, host, cl = "11111111-1111-4111-8111-111111111111", "52540000-aabb-0001-0000-000000000001", "33333333-3333-4333-8333-333333333333"
	f.Fuzz(func(t *testing.T, data []byte) {
		st := enginetest.NewStore()
		ctx := context.Background()
		for _, c := range []engine.Command{
			&engine.CreateCluster{Cluster: engine.Cluster{ID: cl, Name: "c"}},
			&engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ie, Name: "ie", ClusterID: cl}},
			&engine.RegisterHost{Host: engine.Host{ID: host, InfraEnvID: ie, Status: models.HostStatusInstalling}},
			&engine.UpdateHost{ID: host, Patch: engine.HostPatch{Progress: &engine.Progress{CurrentStage: "Installing"}}},
		} {
			if _, err := st.Apply(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
		var p models.HostProgress
		err := decodeBytes(data, &p)
		if err == nil {
			err = hosts.CheckProgress(p)
		}
		if err != nil {
			if !errors.Is(err, ErrBadRequest) {
				t.Fatalf("%q: %v is not a bad request", data, err)
			}
			return
		}
		_, err = st.Apply(ctx, &engine.InstallProgress{ID: host, InfraEnvID: ie, Stage: string(p.CurrentStage), Info: p.ProgressInfo})
		var h engine.Host
		st.Read(func(m *engine.Model) { h, _ = m.Host(host) })
		switch {
		case errors.Is(err, engine.ErrInvalid):
			if h.Progress.CurrentStage != "Installing" {
				t.Fatalf("%q refused but the stage is %q", data, h.Progress.CurrentStage)
			}
		case err != nil:
			t.Fatalf("%q: %v", data, err)
		case p.CurrentStage == models.HostStageFailed:
			if h.Status != models.HostStatusError {
				t.Fatalf("Failed left the host %q", h.Status)
			}
		case engine.StageIndex(h.Progress.CurrentStage) < engine.StageIndex("Installing"):
			t.Fatalf("%q moved the host back to %q", data, h.Progress.CurrentStage)
		}
	})
}

// FuzzInstallConfigBody feeds arbitrary PATCH .../install-config bodies
// through the decoder, the check and the install-config rendering: a body
// is refused as a bad request or renders; the pull secret never appears
// in an error.
func FuzzInstallConfigBody(f *testing.F) {
	for _, seed := range []string{`"{\"fips\":true}"`, `"{\"networking\":{\"networkType\":\"OpenShiftSDN\"}}"`, `""`, `"[]"`,
		`"null"`, `"{\"pullSecret\":null}"`, `{"fips":true}`, `"{\"controlPlane\":{\"replicas\":\"x\"}}"`, `"{\"a\":`} {
		f.Add([]byte(seed))
	}
	base := installer.Cluster{ID: "33333333-3333-4333-8333-333333333333", Name: "c", BaseDomain: "example.com",
		PullSecret: testPullSecret, ControlPlaneCount: 1, MachineNetworks: []string{"10.0.0.0/24"},
		ClusterNetworks: []installer.ClusterNetwork{{CIDR: "10.128.0.0/14", HostPrefix: 23}}, ServiceNetworks: []string{"172.30.0.0/16"},
		Hosts: []installer.Host{{ID: "h", Hostname: "h", Role: "master", Bootstrap: true, InstallationDisk: "/dev/vda"}}}
	f.Fuzz(func(t *testing.T, data []byte) {
		var doc string
		err := decodeBytes(data, &doc)
		if err == nil {
			err = checkOverridesDoc(doc)
		}
		if err != nil {
			if !errors.Is(err, ErrBadRequest) {
				t.Fatalf("%q: %v is not a bad request", data, err)
			}
			return
		}
		c := base
		c.InstallConfigOverrides = doc
		_, err = installer.InstallConfig(c)
		if err != nil && !clusters.InstallerInput(err) {
			t.Fatalf("%q: %v would be a 500", data, err)
		}
		if err != nil && strings.Contains(err.Error(), "c2VjcmV0LXB1bGwtc2VjcmV0") {
			t.Fatalf("the pull secret is in the error: %v", err)
		}
	})
}
