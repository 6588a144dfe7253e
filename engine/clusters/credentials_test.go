package clusters

import (
	"context"
	"errors"
	"testing"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/hosts"
)

// A cluster's credentials are readable only once it is finalizing (a
// conflict before, naming its status), and only when it has install
// artifacts; its other files in any status once made; a name outside
// each list is refused as bad input naming it; a file its generator did
// not make is not found. The Kubernetes-compatible API's AdminCredentials
// reads under the same gate and gives an empty value for what the
// generator did not make. No read writes anything.
func TestCredentialsGate(t *testing.T) {
	d, st := newDomain(t)
	s := d.s.clusters
	ctx := context.Background()
	id, err := d.CreateCluster(ctx, clusterParams("c1"), "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Credentials("nope"); !errors.Is(err, hosts.ErrNotFound) || err.Error() != "not found: cluster nope" {
		t.Errorf("unknown cluster: %v", err)
	}
	if _, err := s.File(id, engine.ArtifactMaster); !errors.Is(err, hosts.ErrConflict) ||
		err.Error() != "conflict: cluster "+id+" has no install artifacts (they are made when it starts installing)" {
		t.Errorf("file before the artifacts: %v", err)
	}
	if _, err := st.Apply(ctx, &engine.PutSecret{Secret: engine.Secret{Name: engine.InstallSecretName(id), Type: engine.InstallSecretType,
		Data: map[string][]byte{engine.ArtifactKubeadminPassword: []byte("pw-1"), engine.ArtifactMaster: []byte(`{"ignition":{}}`)}}}); err != nil {
		t.Fatal(err)
	}
	entries := st.Entries()
	notYet := "conflict: cluster " + id + " is pending-for-input: its credentials are available once it is installed"
	if _, err := s.Credentials(id); !errors.Is(err, hosts.ErrConflict) || err.Error() != notYet {
		t.Errorf("credentials while pending-for-input: %v", err)
	}
	if _, err := s.Credential(id, engine.ArtifactKubeconfig); err == nil || err.Error() != notYet {
		t.Errorf("kubeconfig while pending-for-input: %v", err)
	}
	if _, _, err := d.AdminCredentials(id); err == nil || err.Error() != notYet {
		t.Errorf("admin credentials while pending-for-input: %v", err)
	}
	if b, err := s.File(id, engine.ArtifactMaster); err != nil || string(b) != `{"ignition":{}}` {
		t.Errorf("master.ign while pending-for-input: %q %v", b, err)
	}
	if _, err := s.File(id, engine.ArtifactKubeconfig); !errors.Is(err, hosts.ErrInvalid) ||
		err.Error() != `bad request: file_name "kubeconfig" is not one of bootstrap.ign, master.ign, worker.ign, metadata.json, install-config.yaml` {
		t.Errorf("kubeconfig as a cluster file: %v", err)
	}
	if _, err := s.Credential(id, "../master.ign"); !errors.Is(err, hosts.ErrInvalid) ||
		err.Error() != `bad request: file_name "../master.ign" is not kubeconfig or kubeadmin-password` {
		t.Errorf("a file as a credential: %v", err)
	}

	for _, status := range CredentialStatuses() {
		setStatus(t, st, id, status)
		c, err := s.Credentials(id)
		if err != nil || c.Username != "kubeadmin" || c.Password != "pw-1" ||
			c.ConsoleURL != "https://console-openshift-console.apps.c1.example.com" {
			t.Errorf("%s: credentials %+v %v", status, c, err)
		}
		if _, err := s.Credential(id, engine.ArtifactKubeconfig); !errors.Is(err, hosts.ErrNotFound) ||
			err.Error() != "not found: cluster "+id+": its generator made no kubeconfig" {
			t.Errorf("%s: a kubeconfig the generator did not make: %v", status, err)
		}
		kc, pw, err := d.AdminCredentials(id)
		if err != nil || len(kc) != 0 || string(pw) != "pw-1" {
			t.Errorf("%s: admin credentials %q %q %v", status, kc, pw, err)
		}
	}
	if n, moves := st.Entries()-entries, uint64(len(CredentialStatuses())); n != moves {
		t.Errorf("the reads wrote %d entries", n-moves)
	}
}

// setStatus moves cluster id to status, from whatever it is.
func setStatus(t *testing.T, st engine.Store, id, status string) {
	t.Helper()
	var from string
	st.Read(func(m *engine.Model) { c, _ := m.Cluster(id); from = c.Status })
	if _, err := st.Apply(context.Background(), &engine.SetClusterStatus{ID: id, Status: status, From: []string{from}}); err != nil {
		t.Fatal(err)
	}
}
