package downloads

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/boot/installer"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/models"
)

const (
	clusterID = "22222222-2222-2222-2222-222222222222"
	ieID      = "33333333-3333-3333-3333-333333333333"
	hostID    = "44444444-4444-4444-4444-444444444444"
)

// installBed is a bed with a cluster of image set "set 1" (whose disk
// image is set when disk), an infra-env bound to it and a master host in
// status.
func installBed(t *testing.T, disk bool, status string) *bed {
	b := newBed(t)
	is := engine.ImageSet{Name: "set 1", Profile: "p"}
	if disk {
		is.DiskImage = engine.DiskImage{Path: "/srv/disk.img", SHA256: "ab12", Size: 4096}
	}
	b.apply(&engine.PutImageSet{ImageSet: is})
	b.apply(&engine.CreateCluster{Cluster: engine.Cluster{ID: clusterID, Name: "c1", BaseDomain: "example.com", ImageSetRef: "set 1"}})
	b.apply(&engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ieID, Name: "rack", ClusterID: clusterID}})
	b.apply(&engine.RegisterHost{Host: engine.Host{ID: hostID, InfraEnvID: ieID, Status: status, Role: "master",
		InstallationDiskID: "/dev/disk/by-id/virtio-1", Inventory: inventory("52:54:00:aa:00:01"),
		InstallerArgs: `["--append-karg","console=ttyS0"]`}})
	return b
}

func (b *bed) host() engine.Host {
	var h engine.Host
	b.st.Read(func(m *engine.Model) { h, _ = m.Host(hostID) })
	return h
}

// The install step's arguments name the host's disk and role, the disk
// image of its cluster's image set on the boot server with its sum and
// size, its install Ignition on the REST API and its installer
// arguments; it is handed out once, as the host moves to
// installing-in-progress (a poll that read the host before gets none).
// A cluster whose image set has no disk image, or a host without its
// disk in the inventory, gets a conflict naming the host.
func TestInstallStepOnce(t *testing.T) {
	b := installBed(t, true, models.HostStatusInstalling)
	s := b.service(Options{})
	ctx := context.Background()
	polled := b.host()
	step, err := s.InstallStep(ctx, polled)
	if err != nil || step == nil || step.StepType != models.StepTypeInstall || len(step.Args) != 1 {
		t.Fatalf("install step %+v %v", step, err)
	}
	var a models.InstallStepArgs
	if err := json.Unmarshal([]byte(step.Args[0]), &a); err != nil {
		t.Fatal(err)
	}
	want := models.InstallStepArgs{Role: "master", ClusterID: clusterID, HostID: hostID, InfraEnvID: ieID, BootDevice: "/dev/vda",
		InstallerArgs: []string{"--append-karg", "console=ttyS0"}, ImageURL: bootURL + "/images/set%201/disk.img",
		ImageSHA256: "ab12", ImageSize: 4096,
		IgnitionURL: serviceURL + "/api/assisted-install/v2/infra-envs/" + ieID + "/hosts/" + hostID + "/downloads/ignition"}
	if a.Role != want.Role || a.ClusterID != want.ClusterID || a.HostID != want.HostID || a.InfraEnvID != want.InfraEnvID ||
		a.BootDevice != want.BootDevice || !slices.Equal(a.InstallerArgs, want.InstallerArgs) || a.ImageURL != want.ImageURL ||
		a.ImageSHA256 != want.ImageSHA256 || a.ImageSize != want.ImageSize || a.IgnitionURL != want.IgnitionURL ||
		a.ExternalReboot || len(a.WipeDisks) != 0 {
		t.Errorf("install step args\n got %+v\nwant %+v", a, want)
	}
	if h := b.host(); h.Status != models.HostStatusInstallingInProgress {
		t.Errorf("host after the hand-out: %s", h.Status)
	}
	if again, err := s.InstallStep(ctx, polled); err != nil || again != nil {
		t.Errorf("handed out twice: %+v %v", again, err)
	}
	if none, err := s.InstallStep(ctx, b.host()); err != nil || none != nil {
		t.Errorf("a host installing-in-progress: %+v %v", none, err)
	}

	b = installBed(t, false, models.HostStatusInstalling)
	entries := b.st.Entries()
	_, err = b.service(Options{}).InstallStep(ctx, b.host())
	if !errors.Is(err, hosts.ErrConflict) || err.Error() != "conflict: host "+hostID+": its cluster's image set has no disk image" {
		t.Errorf("no disk image: %v", err)
	}
	h := b.host()
	h.InstallationDiskID = "/dev/disk/by-id/gone"
	if _, err := b.service(Options{}).InstallArgs(h); err == nil {
		t.Error("a host without its installation disk got install arguments")
	}
	if n := b.st.Entries() - entries; n != 0 || b.host().Status != models.HostStatusInstalling {
		t.Errorf("a refused install step wrote %d entries; host %s", n, b.host().Status)
	}
}

// Only an installing host gets its install Ignition: its role's config
// with its hostname and a first-boot report to its progress URL, whose
// token the key ring verifies as scoped to this host alone (an agent
// token check refuses it). Before the cluster's artifacts exist it is a
// conflict; a host that is not installing gets a conflict naming its
// status.
func TestHostIgnitionGate(t *testing.T) {
	b := installBed(t, true, models.HostStatusKnown)
	s := b.service(Options{})
	if _, err := s.HostIgnition(ieID, hostID); !errors.Is(err, hosts.ErrConflict) ||
		err.Error() != "conflict: host "+hostID+" is known, not installing" {
		t.Errorf("a known host: %v", err)
	}
	if _, err := s.HostIgnition("nope", hostID); !errors.Is(err, hosts.ErrNotFound) {
		t.Errorf("another infra-env: %v", err)
	}
	b.apply(&engine.SetHostStatus{ID: hostID, Status: models.HostStatusInstallingInProgress})
	if _, err := s.HostIgnition(ieID, hostID); !errors.Is(err, hosts.ErrConflict) ||
		!strings.Contains(err.Error(), "cluster "+clusterID+" has no install configs yet") {
		t.Errorf("before the artifacts: %v", err)
	}
	b.apply(&engine.PutSecret{Secret: engine.Secret{Name: engine.InstallSecretName(clusterID), Type: engine.InstallSecretType,
		Data: map[string][]byte{engine.ArtifactMaster: []byte(`{"ignition":{"version":"3.4.0"}}`)}}})
	ign, err := s.HostIgnition(ieID, hostID)
	if err != nil {
		t.Fatal(err)
	}
	if got := ignitionFile(t, ign, installer.HostnamePath); strings.TrimSpace(got) != "node-1" {
		t.Errorf("hostname %q", got)
	}
	progress := serviceURL + "/api/assisted-install/v2/infra-envs/" + ieID + "/hosts/" + hostID + "/progress"
	if script := ignitionFile(t, ign, installer.FirstBootScript); !strings.Contains(script, progress) {
		t.Errorf("first boot script does not report to %s:\n%s", progress, script)
	}
	tok := strings.TrimSpace(ignitionFile(t, ign, installer.FirstBootTokenPath))
	p, err := b.keys.VerifyHost(tok)
	if err != nil || p.HostID != hostID || p.InfraEnvID != ieID {
		t.Errorf("first boot token: %+v %v", p, err)
	}
	if _, err := b.keys.Verify(tok); err == nil {
		t.Error("the host token passes as an agent token")
	}
}
