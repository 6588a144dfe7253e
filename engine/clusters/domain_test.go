package clusters

import (
	"context"
	"errors"
	"testing"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/enginetest"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/models"
)

func newDomain(t *testing.T) (*Domain, *enginetest.Store) {
	t.Helper()
	st := enginetest.NewStore()
	d, err := NewDomain(hosts.Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	return d, st
}

func clusterParams(name string) models.ClusterCreateParams {
	v, ps := "4.17", `{"auths":{}}`
	return models.ClusterCreateParams{Name: &name, OpenshiftVersion: &v, PullSecret: &ps, BaseDNSDomain: "example.com"}
}

// The domain, with no HTTP, refuses bad input with the reason alone
// (engine.ErrInvalid) and writes nothing, registers a good cluster with
// its event, and refuses to install a cluster that is not ready with its
// failing validations (a conflict).
func TestDomainClusters(t *testing.T) {
	d, st := newDomain(t)
	ctx := context.Background()
	bad := clusterParams("c1")
	bad.HighAvailabilityMode = "Half"
	_, err := d.CreateCluster(ctx, bad, "")
	if !errors.Is(err, engine.ErrInvalid) || err.Error() != `high_availability_mode "Half" is not Full or None` {
		t.Fatalf("bad cluster: %v", err)
	}
	if n := st.Entries(); n != 0 {
		t.Errorf("a refused cluster wrote %d entries", n)
	}
	id, err := d.CreateCluster(ctx, clusterParams("c1"), "")
	if err != nil {
		t.Fatal(err)
	}
	var (
		c      engine.Cluster
		events []string
	)
	st.Read(func(m *engine.Model) {
		c, _ = m.Cluster(id)
		for e := range m.Events(0) {
			events = append(events, e.Name)
		}
	})
	if c.Name != "c1" || len(c.ClusterNetworks) != 1 || c.ClusterNetworks[0].CIDR != "10.128.0.0/14" || c.PullSecretRef != ClusterSecretName(id) {
		t.Errorf("cluster %+v", c)
	}
	if len(events) == 0 || events[0] != "cluster_registration_succeeded" {
		t.Errorf("events %q", events)
	}
	err = d.InstallCluster(ctx, id)
	var nr *NotReadyError
	if !errors.As(err, &nr) || !errors.Is(err, engine.ErrConflict) || len(nr.Validations) == 0 {
		t.Fatalf("install of a cluster with no hosts: %v", err)
	}
	if fv := d.FailingValidations(id); len(fv) != len(nr.Validations) {
		t.Errorf("FailingValidations %d, the refusal %d", len(fv), len(nr.Validations))
	}
	if err := d.DeleteCluster(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := d.DeleteCluster(ctx, id); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("deleting a deleted cluster: %v", err)
	}
}
