package install

import (
	"context"
	"errors"
	"testing"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/enginetest"
)

const inv = `{"hostname":"inv-name","interfaces":[{"name":"eth0","mac_address":"52:54:00:AA:00:01"}],
"disks":[{"id":"/dev/disk/by-path/pci-0000:00:04.0","by_path":"/dev/disk/by-path/pci-0000:00:04.0","path":"/dev/vda"},
{"id":"/dev/disk/by-id/wwn-1","by_id":"/dev/disk/by-id/wwn-1"}]}`

func TestHostDetails(t *testing.T) {
	h := engine.Host{ID: "h1", Inventory: []byte(inv), InstallationDiskID: "/dev/disk/by-path/pci-0000:00:04.0", Role: "master"}
	d := HostDetails(h)
	if d.Hostname != "inv-name" || len(d.MACs) != 1 || d.MACs[0] != "52:54:00:aa:00:01" || d.BootDevice() != "/dev/vda" {
		t.Errorf("details %+v boot %q", d, d.BootDevice())
	}
	h.RequestedHostname, h.InstallationDiskID = "asked", "/dev/disk/by-id/wwn-1"
	if d := HostDetails(h); d.Hostname != "asked" || d.BootDevice() != "/dev/disk/by-id/wwn-1" {
		t.Errorf("details %+v", d)
	}
	h.InstallationDiskID = "gone"
	if d := HostDetails(h); d.Disk != nil || d.BootDevice() != "" {
		t.Errorf("unknown disk: %+v", d)
	}
	if d := HostDetails(engine.Host{Inventory: []byte("{")}); d.Hostname != "" || d.MACs != nil {
		t.Errorf("broken inventory: %+v", d)
	}
}

func TestClusterNeedsPullSecret(t *testing.T) {
	st := enginetest.NewStore()
	if _, err := st.Apply(context.Background(), &engine.CreateCluster{Cluster: engine.Cluster{ID: "33333333-3333-4333-8333-333333333333", Name: "c"}}); err != nil {
		t.Fatal(err)
	}
	st.Read(func(m *engine.Model) {
		c, _ := m.Cluster("33333333-3333-4333-8333-333333333333")
		if _, err := Cluster(m, c); !errors.Is(err, ErrPrepare) {
			t.Errorf("cluster without a pull secret: %v", err)
		}
	})
}

func TestDefaultGenerators(t *testing.T) {
	gens := DefaultGenerators(t.TempDir(), nil)
	for _, is := range []engine.ImageSet{{Name: "a"}, {Name: "b", Generator: engine.GeneratorOpenShiftInstall},
		{Name: "c", Generator: "magic", RoleIgnitionDir: "/x"}} {
		if _, err := gens(is); !errors.Is(err, ErrPrepare) {
			t.Errorf("%s: %v", is.Name, err)
		}
	}
	for _, is := range []engine.ImageSet{{Name: "d", RoleIgnitionDir: "/x"},
		{Name: "e", Generator: engine.GeneratorOpenShiftInstall, OpenShiftInstall: "/bin/true"}} {
		if g, err := gens(is); err != nil || g == nil {
			t.Errorf("%s: %v", is.Name, err)
		}
	}
	if _, err := NewController(Options{}); !errors.Is(err, ErrOptions) {
		t.Errorf("empty options: %v", err)
	}
}
