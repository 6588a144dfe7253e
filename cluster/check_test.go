package cluster

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/rackboot/rackboot/engine"
)

// A command the domain refuses is not appended: the raft log does not
// grow, and nothing it carried (a BMC password inside a refused address)
// reaches raft.db. Applying still checks (a forwarded or racing command).
func TestRefusedCommandsAreNotAppended(t *testing.T) {
	const password = "Refused-Pa55word-in-address"
	dir := t.TempDir()
	s := open(t, testConfig(dir))
	t.Cleanup(func() { _ = s.Close() })
	must(t, s, &engine.CreateCluster{Cluster: engine.Cluster{ID: clID, Name: "c1"}})
	must(t, s, &engine.CreateBareMetalHost{Host: engine.BareMetalHost{Name: "bmh1",
		BMC: engine.BMC{Address: "redfish://10.0.0.5/redfish/v1/Systems/1", CredentialsName: "bmh1-bmc"}}})
	badAddr := "redfish://root:" + password + "@10.0.0.5/redfish/v1/Systems/1"

	refused := []struct {
		name string
		cmd  engine.Command
		want error
	}{
		{"bmh with credentials in its address", &engine.CreateBareMetalHost{Host: engine.BareMetalHost{Name: "bmh2",
			BMC: engine.BMC{Address: badAddr, CredentialsName: "bmh2-bmc"}}}, engine.ErrInvalid},
		{"bmh patched with credentials in its address", &engine.UpdateBareMetalHost{Name: "bmh1",
			Patch: engine.BMHPatch{Address: &badAddr}}, engine.ErrInvalid},
		{"bmh that exists", &engine.CreateBareMetalHost{Host: engine.BareMetalHost{Name: "bmh1"}}, engine.ErrConflict},
		{"infra-env of no cluster", &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ieID, Name: "ie",
			ClusterID: "44444444-4444-4444-8444-444444444444"}}, engine.ErrNotFound},
		{"cluster without a name", &engine.CreateCluster{Cluster: engine.Cluster{ID: uuid(7)}}, engine.ErrInvalid},
		{"secret without a name", &engine.PutSecret{Secret: engine.Secret{Data: map[string][]byte{"password": []byte(password)}}}, engine.ErrInvalid},
		{"lease of a bad MAC", &engine.LeaseCommit{Leases: []engine.LeaseRecord{{MAC: password}}}, engine.ErrInvalid},
		{"fenced create of a bad bmh", &engine.Fenced{Term: 1, Cmd: &engine.CreateBareMetalHost{Host: engine.BareMetalHost{Name: "Bad_Name"}}}, engine.ErrInvalid},
		{"delete of no cluster", &engine.DeleteCluster{ID: "44444444-4444-4444-8444-444444444444"}, engine.ErrNotFound},
	}
	for _, tc := range refused {
		before := s.Stats().LastIndex
		_, err := s.Apply(context.Background(), tc.cmd)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
		if after := s.Stats().LastIndex; after != before {
			t.Errorf("%s: refused, yet the log grew from index %d to %d", tc.name, before, after)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := os.ReadFile(filepath.Join(dir, "raft", "raft.db"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(db, []byte(password)) {
		t.Errorf("raft.db holds the password of a refused command")
	}
}
