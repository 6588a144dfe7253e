package api

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/enginetest"
	"github.com/rackboot/rackboot/engine/models"
)

// installRefused checks a 409 of the install action that names want among
// its failing validations and changed nothing.
func installRefused(t *testing.T, rk *rack, want ...string) NotReadyDocument {
	t.Helper()
	before := rk.e.store.(*enginetest.Store).Dump()
	r := rk.e.do(adminCred(), "POST", "/clusters/"+rk.cluster.ID+"/actions/install", nil)
	rk.e.wantError(r, 409, "not ready")
	var doc NotReadyDocument
	r.decode(t, &doc)
	var ids []string
	for _, v := range doc.Validations {
		ids = append(ids, v.ID)
		if v.Message == "" || v.Status == "" {
			t.Errorf("failing validation without status or message: %+v", v)
		}
	}
	for _, w := range want {
		if !slices.Contains(ids, w) {
			t.Errorf("failing validations %v, want %s among them", ids, w)
		}
	}
	if after := rk.e.store.(*enginetest.Store).Dump(); !bytes.Equal(objectsOf(before), objectsOf(after)) {
		t.Errorf("a refused install changed the model")
	}
	return doc
}

// objectsOf drops the header and the events of a dump.
func objectsOf(dump []byte) []byte {
	var out [][]byte
	for _, l := range bytes.Split(dump, []byte("\n"))[1:] {
		if !bytes.HasPrefix(l, []byte(`{"k":"event"`)) {
			out = append(out, l)
		}
	}
	return bytes.Join(out, []byte("\n"))
}

// A cluster that is not ready is refused with its failing validations
// (cluster and host ones), and nothing changes.
func TestInstallRefusedWhenNotReady(t *testing.T) {
	e := newMemEnv(t)
	rk := newRack(t, e, 3, 1)
	rk.discover()
	installRefused(t, rk, "sufficient-masters-count")
	// A host with a hostname that is not unique: its validation is listed
	// with its id.
	rk.add(2)
	rk.discover()
	e.must(adminCred(), 201, "PATCH", rk.agents[1].path(), map[string]any{"host_name": "node-1"})
	doc := installRefused(t, rk, "sufficient-masters-count", "all-hosts-are-ready-to-install", "hostname-unique")
	if !slices.ContainsFunc(doc.Validations, func(v models.FailingValidation) bool { return v.HostID == rk.agents[1].id }) {
		t.Errorf("no validation of host 2 among %+v", doc.Validations)
	}
	if c := rk.get(); c.Status == engine.ClusterStatusPreparingForInstallation {
		t.Errorf("cluster moved to %s", c.Status)
	}
}

// A held installation and a cluster without a disk image are refused.
func TestInstallHeldAndNoDiskImage(t *testing.T) {
	e := newMemEnv(t)
	rk := newRack(t, e, 1, 1)
	rk.discover()
	rk.approveAll("master")
	if c := rk.get(); c.Status != engine.ClusterStatusReady {
		t.Fatalf("cluster %q (%s), want ready: %s", c.Status, c.StatusInfo, c.ValidationsInfo)
	}
	e.must(adminCred(), 201, "PATCH", "/clusters/"+rk.cluster.ID, map[string]any{"hold_installation": true})
	e.wantError(e.do(adminCred(), "POST", "/clusters/"+rk.cluster.ID+"/actions/install", nil), 409, "hold_installation")
	e.must(adminCred(), 201, "PATCH", "/clusters/"+rk.cluster.ID, map[string]any{"hold_installation": false})
	e.must(adminCred(), 201, "PATCH", rk.agents[0].path(), map[string]any{"approved": false})
	e.wantError(e.do(adminCred(), "POST", "/clusters/"+rk.cluster.ID+"/actions/install", nil), 409, "approval of 1 hosts")
	e.must(adminCred(), 201, "PATCH", rk.agents[0].path(), map[string]any{"approved": true})
	is := testImageSet()
	is.DiskImage = engine.DiskImage{}
	if _, err := e.store.Apply(t.Context(), &engine.PutImageSet{ImageSet: is}); err != nil {
		t.Fatal(err)
	}
	e.wantError(e.do(adminCred(), "POST", "/clusters/"+rk.cluster.ID+"/actions/install", nil), 409, "no disk image")
	if c := rk.get(); c.Status != engine.ClusterStatusReady {
		t.Errorf("cluster %q after refusals", c.Status)
	}
}

// Cluster creation checks control_plane_count and network_type, and
// gives the cluster the image set of its version.
func TestClusterInstallFields(t *testing.T) {
	e := newMemEnv(t)
	if _, err := e.store.Apply(t.Context(), &engine.PutImageSet{ImageSet: testImageSet()}); err != nil {
		t.Fatal(err)
	}
	base := func(extra map[string]any) map[string]any {
		b := map[string]any{"name": "c", "openshift_version": "4.17", "pull_secret": testPullSecret}
		for k, v := range extra {
			b[k] = v
		}
		return b
	}
	for _, n := range []int{0, 2, 4, 6} {
		e.wantError(e.do(adminCred(), "POST", "/clusters", base(map[string]any{"control_plane_count": n})), 400, "control_plane_count")
	}
	e.wantError(e.do(adminCred(), "POST", "/clusters", base(map[string]any{"network_type": "Calico"})), 400, "network_type")
	e.wantError(e.do(adminCred(), "POST", "/clusters", base(map[string]any{"image_set_ref": "nope"})), 400, "image_set_ref")
	var c models.Cluster
	e.must(adminCred(), 201, "POST", "/clusters", base(map[string]any{"control_plane_count": 5, "network_type": "OpenShiftSDN"})).decode(t, &c)
	if c.ImageSetRef != "testos-1" || c.NetworkType != "OpenShiftSDN" || c.ControlPlaneCount != 5 {
		t.Errorf("cluster image set %q network %q control plane %d", c.ImageSetRef, c.NetworkType, c.ControlPlaneCount)
	}
	var raw map[string]any
	e.must(adminCred(), 201, "PATCH", "/clusters/"+c.ID, map[string]any{"network_type": "OVNKubernetes", "hold_installation": true}).decode(t, &raw)
	if raw["network_type"] != "OVNKubernetes" || raw["hold_installation"] != true {
		t.Errorf("patched cluster %v %v", raw["network_type"], raw["hold_installation"])
	}
}

// A ready single-node cluster starts installing: 202, the cluster and its
// host preparing, the host the bootstrap.
func TestInstallStartsSNO(t *testing.T) {
	e := newMemEnv(t)
	rk := newRack(t, e, 1, 1)
	rk.discover()
	rk.approveAll("master")
	var c models.Cluster
	e.must(adminCred(), 202, "POST", "/clusters/"+rk.cluster.ID+"/actions/install", nil).decode(t, &c)
	if c.Status != engine.ClusterStatusPreparingForInstallation || c.InstallStartedAt.IsZero() {
		t.Errorf("cluster %q started %v", c.Status, c.InstallStartedAt)
	}
	_, hs := rk.model()
	if len(hs) != 1 || !hs[0].Bootstrap || hs[0].Role != "master" || hs[0].Status != models.HostStatusPreparingForInstallation {
		t.Errorf("host %+v", hs)
	}
	// Installing again is refused: the cluster is no longer ready.
	installRefused(t, rk)
	var evs []models.Event
	e.must(adminCred(), 200, "GET", "/events?cluster_id="+rk.cluster.ID, nil).decode(t, &evs)
	if !slices.ContainsFunc(evs, func(ev models.Event) bool { return ev.Name == "cluster_installation_started" }) {
		b, _ := json.Marshal(evs)
		t.Errorf("no cluster_installation_started event: %s", b)
	}
}

// A cluster naming its image set may leave openshift_version out (the
// README's `rackbootctl create cluster --image-set testbed`): it takes
// the image set's version. Naming neither is refused.
func TestClusterTakesItsImageSetVersion(t *testing.T) {
	e := newMemEnv(t)
	if _, err := e.store.Apply(t.Context(), &engine.PutImageSet{ImageSet: testImageSet()}); err != nil {
		t.Fatal(err)
	}
	e.wantError(e.do(adminCred(), "POST", "/clusters", map[string]any{"name": "c", "pull_secret": testPullSecret}), 400, "openshift_version is required")
	var c models.Cluster
	e.must(adminCred(), 201, "POST", "/clusters", map[string]any{"name": "c", "pull_secret": testPullSecret, "image_set_ref": "testos-1"}).decode(t, &c)
	if c.ImageSetRef != "testos-1" || c.OpenshiftVersion != testImageSet().Version {
		t.Errorf("cluster image set %q version %q, want testos-1 and %q", c.ImageSetRef, c.OpenshiftVersion, testImageSet().Version)
	}
	// Created without networks, it gets upstream's (else it could never be
	// ready: cluster-cidr-defined and service-cidr-defined would fail).
	if len(c.ClusterNetworks) != 1 || c.ClusterNetworks[0].CIDR != "10.128.0.0/14" || c.ClusterNetworks[0].HostPrefix != 23 ||
		len(c.ServiceNetworks) != 1 || c.ServiceNetworks[0].CIDR != "172.30.0.0/16" {
		t.Errorf("default networks: cluster %+v service %+v", c.ClusterNetworks, c.ServiceNetworks)
	}
}
