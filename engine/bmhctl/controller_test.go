package bmhctl_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/bmhctl"
	"github.com/rackboot/rackboot/engine/models"
)

// inventory is an agent inventory with the VM's NIC and two disks.
func inventory(t *testing.T) json.RawMessage {
	inv := models.Inventory{
		Interfaces: []*models.Interface{{Name: "eth0", MacAddress: vmMAC}},
		Disks: []*models.Disk{
			{ID: "/dev/disk/by-path/pci-0000:00:04.0", Name: "vda", Path: "/dev/vda", SizeBytes: 20 << 30, DriveType: models.DriveTypeHDD},
			{ID: "/dev/disk/by-id/wwn-0x5000c500a1b2c3d4", Name: "sda", Path: "/dev/sda", SizeBytes: 200 << 30,
				DriveType: models.DriveTypeSSD, Model: "QEMU HARDDISK", Wwn: "0x5000c500a1b2c3d4"},
		},
	}
	b, err := json.Marshal(inv)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A virtual-media BMH: the controller inserts the ISO, sets a one-time Cd
// boot and powers on; pairs the agent that registers with the boot MAC
// (annotations copied, approved, disk from the hints); and once the host
// reports Rebooting ejects, sets a one-time Hdd boot, resets and detaches.
func TestVirtualMediaFlow(t *testing.T) {
	b := newBed(t)
	notRotational := false
	b.addBMH("redfish-virtualmedia", bmcPass, func(h *engine.BareMetalHost) {
		h.Annotations = map[string]string{
			engine.AnnotationRole:                        "master",
			engine.AnnotationHostname:                    "cp-0",
			engine.AnnotationInstallerArgs:               `["--append-karg","nosmt"]`,
			engine.AnnotationMachineConfigPool:           "infra",
			engine.AnnotationAgentLabelPrefix + "rack":   "r1",
			engine.AnnotationIgnitionOverrides:           `{"ignition":{"version":"3.2.0"}}`,
			"unrelated.example.com/annotation":           "ignored",
			engine.AnnotationAgentLabelPrefix + "zone-a": "z",
		}
		h.RootDeviceHints = &engine.RootDeviceHints{MinSizeGigabytes: 100, Rotational: &notRotational}
	})

	reqs := b.reconcile()
	sameList(t, "requests of the first pass (writes)", writes(reqs), []string{
		`POST /redfish/v1/Systems/vm1/VirtualMedia/Cd/Actions/VirtualMedia.InsertMedia {"Image":"` + b.isoBase + `/images/` + ieID + `/tok3n-abc/discovery.iso","Inserted":true,"WriteProtected":true}`,
		`PATCH /redfish/v1/Systems/vm1 {"Boot":{"BootSourceOverrideEnabled":"Once","BootSourceOverrideTarget":"Cd"}}`,
		`POST /redfish/v1/Systems/vm1/Actions/ComputerSystem.Reset {"ResetType":"On"}`,
	})
	if !contains(reqs, "GET /redfish/v1/Systems/vm1") {
		t.Errorf("the power state was not read: %q", reqs)
	}
	if got := b.machine.history(); got != "start boot=Cd once=true cd=true" {
		t.Errorf("machine = %q, want a start from the inserted CD", got)
	}
	st := b.bmh().Status
	if st.ProvisioningState != engine.BMHProvisioning || st.PowerState != "On" || st.ErrorCount != 0 || st.LastOperation != "power on" {
		t.Errorf("status after provisioning = %+v", st)
	}
	for _, e := range b.events() {
		if strings.Contains(e, "tok3n") || strings.Contains(e, bmcPass) {
			t.Errorf("event shows the image token or the password: %s", e)
		}
	}

	// Nothing to do until the agent registers: no request at all.
	if reqs := b.reconcile(); len(reqs) != 0 {
		t.Errorf("idle pass sent %q", reqs)
	}

	b.apply(&engine.RegisterHost{Host: engine.Host{ID: hostID, InfraEnvID: ieID, Status: "discovering-unbound", Inventory: inventory(t)}})
	if reqs := b.reconcile(); len(reqs) != 0 {
		t.Errorf("pairing sent BMC requests %q", reqs)
	}
	h := b.host()
	if h.BMHName != "vm1" || !h.Approved || h.Role != "master" || h.RequestedHostname != "cp-0" ||
		h.InstallationDiskID != "/dev/disk/by-id/wwn-0x5000c500a1b2c3d4" || h.InstallerArgs != `["--append-karg","nosmt"]` ||
		h.MachineConfigPool != "infra" || h.IgnitionOverride != `{"ignition":{"version":"3.2.0"}}` || h.Labels["rack"] != "r1" || h.Labels["zone-a"] != "z" || len(h.Labels) != 2 {
		t.Errorf("paired host = %+v", h)
	}
	if st := b.bmh().Status; st.HostID != hostID || st.ProvisioningState != engine.BMHProvisioned {
		t.Errorf("BMH status after pairing = %+v", st)
	}

	// Writing the image: still nothing. Rebooting: hand over to the disk.
	progress := func(stage models.HostStage) {
		b.apply(&engine.UpdateHost{ID: hostID, Patch: engine.HostPatch{Progress: &engine.Progress{CurrentStage: string(stage)}}})
	}
	progress(models.HostStageWritingImageToDisk)
	if reqs := b.reconcile(); len(reqs) != 0 {
		t.Errorf("pass while writing the image sent %q", reqs)
	}
	progress(models.HostStageRebooting)
	sameList(t, "requests after Rebooting (writes)", writes(b.reconcile()), []string{
		`POST /redfish/v1/Systems/vm1/VirtualMedia/Cd/Actions/VirtualMedia.EjectMedia {}`,
		`PATCH /redfish/v1/Systems/vm1 {"Boot":{"BootSourceOverrideEnabled":"Once","BootSourceOverrideTarget":"Hdd"}}`,
		`POST /redfish/v1/Systems/vm1/Actions/ComputerSystem.Reset {"ResetType":"ForceRestart"}`,
	})
	bm := b.bmh()
	if !bm.Detached() || bm.Status.ProvisioningState != engine.BMHDetached || bm.Status.OperationalStatus != engine.BMHStatusDetached {
		t.Errorf("BMH after the reboot = %+v", bm)
	}
	if reqs := b.reconcile(); len(reqs) != 0 {
		t.Errorf("a detached BMH got requests %q", reqs)
	}
	var names []string
	for _, e := range b.events() {
		names = append(names, strings.SplitN(e, ":", 2)[0])
	}
	sameList(t, "events", names, []string{"bmh_media_inserted", "bmh_boot_once", "bmh_power_on", "bmh_paired",
		"bmh_media_ejected", "bmh_boot_once", "bmh_reset", "bmh_detached"})
}

// A redfish:// (PXE) BMH gets a one-time Pxe boot and no virtual media.
func TestPXEFlow(t *testing.T) {
	b := newBed(t)
	b.addBMH("redfish", bmcPass, nil)
	sameList(t, "requests (writes)", writes(b.reconcile()), []string{
		`PATCH /redfish/v1/Systems/vm1 {"Boot":{"BootSourceOverrideEnabled":"Once","BootSourceOverrideTarget":"Pxe"}}`,
		`POST /redfish/v1/Systems/vm1/Actions/ComputerSystem.Reset {"ResetType":"On"}`,
	})
	if got := b.machine.history(); got != "start boot=Pxe once=true cd=false" {
		t.Errorf("machine = %q", got)
	}
	b.apply(&engine.RegisterHost{Host: engine.Host{ID: hostID, InfraEnvID: ieID, Status: "discovering-unbound", Inventory: inventory(t)}})
	b.reconcile()
	b.apply(&engine.UpdateHost{ID: hostID, Patch: engine.HostPatch{Progress: &engine.Progress{CurrentStage: string(models.HostStageRebooting)}}})
	sameList(t, "requests after Rebooting (writes)", writes(b.reconcile()), []string{
		`PATCH /redfish/v1/Systems/vm1 {"Boot":{"BootSourceOverrideEnabled":"Once","BootSourceOverrideTarget":"Hdd"}}`,
		`POST /redfish/v1/Systems/vm1/Actions/ComputerSystem.Reset {"ResetType":"ForceRestart"}`,
	})
}

// An unlabelled BMH is only registered: its power state is read once.
func TestUnlabelledBMHIsOnlyRegistered(t *testing.T) {
	b := newBed(t)
	b.addBMH("redfish", bmcPass, func(h *engine.BareMetalHost) { h.Labels = nil })
	if w := writes(b.reconcile()); len(w) != 0 {
		t.Errorf("writes to an unlabelled BMH: %q", w)
	}
	if st := b.bmh().Status; st.ProvisioningState != engine.BMHAvailable || st.PowerState != "Off" {
		t.Errorf("status = %+v", st)
	}
	if reqs := b.reconcile(); len(reqs) != 0 {
		t.Errorf("an available BMH is polled: %q", reqs)
	}
}

// A wrong password: the BMH says so, and the BMC is asked again only at
// the backoff (doubling), never in between, however often the controller
// runs.
func TestBadCredentialsBackoff(t *testing.T) {
	b := newBed(t)
	b.addBMH("redfish-virtualmedia", "wrong-password", nil)
	first := b.reconcile()
	if len(first) == 0 {
		t.Fatal("no request sent")
	}
	st := b.bmh().Status
	if st.ErrorType != bmhctl.ErrorBadCredentials || st.ErrorCount != 1 || st.OperationalStatus != engine.BMHStatusError ||
		!st.NextRetryAt.Equal(b.clk.Now().Add(testBackoff)) {
		t.Errorf("status after the refusal = %+v", st)
	}
	if strings.Contains(st.ErrorMessage, "wrong-password") {
		t.Errorf("error message shows the password: %s", st.ErrorMessage)
	}
	for i := 0; i < 20; i++ {
		if reqs := b.reconcile(); len(reqs) != 0 {
			t.Fatalf("pass %d before the backoff sent %q", i, reqs)
		}
	}
	b.clk.add(testBackoff)
	if again := b.reconcile(); len(again) == 0 || len(again) > len(first) {
		t.Errorf("retry at the backoff sent %d requests (%q), the first attempt %d", len(again), again, len(first))
	}
	st = b.bmh().Status
	if st.ErrorCount != 2 || !st.NextRetryAt.Equal(b.clk.Now().Add(2*testBackoff)) {
		t.Errorf("status after the second refusal = %+v", st)
	}
	b.clk.add(testBackoff + testBackoff/2) // not yet 2·backoff
	if reqs := b.reconcile(); len(reqs) != 0 {
		t.Errorf("retry before the doubled backoff sent %q", reqs)
	}
	// The operator fixes the secret and asks for a retry: it works at once.
	pass, _ := b.sealer.Seal("vm1-bmc", engine.BMCSecretPassword, []byte(bmcPass))
	user, _ := b.sealer.Seal("vm1-bmc", engine.BMCSecretUsername, []byte(bmcUser))
	b.apply(&engine.PutSecret{Secret: engine.Secret{Name: "vm1-bmc", Data: map[string][]byte{
		engine.BMCSecretUsername: user, engine.BMCSecretPassword: pass}}})
	b.apply(&engine.UpdateBareMetalHost{Name: "vm1", Patch: engine.BMHPatch{RetryNow: true}})
	b.reconcile()
	if st := b.bmh().Status; st.ErrorCount != 0 || st.ProvisioningState != engine.BMHProvisioning {
		t.Errorf("status after fixing the password = %+v", st)
	}
	for _, e := range b.events() {
		if strings.Contains(e, "wrong-password") || strings.Contains(e, bmcPass) {
			t.Errorf("event shows a password: %s", e)
		}
	}
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// Run acts on a change without waiting for its interval, and stops with
// its context.
func TestRunFollowsChanges(t *testing.T) {
	b := newBed(t)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.ctl.Run(ctx)
	}()
	changes := b.st.Subscribe(ctx)
	b.addBMH("redfish", bmcPass, nil)
	deadline := time.After(30 * time.Second)
	for b.bmh().Status.ProvisioningState != engine.BMHProvisioning {
		select {
		case <-changes:
		case <-deadline:
			t.Fatalf("Run did not provision the new BMH: %+v", b.bmh().Status)
		}
	}
	cancel()
	<-done
}

// spec.online false keeps the machine off: powered off once (no request
// while it stays off), provisioned anew when it is online again; a paired
// host stays paired through it.
func TestOnlineFalse(t *testing.T) {
	b := newBed(t)
	b.addBMH("redfish", bmcPass, nil)
	b.reconcile() // online: provisioned, powered on
	offline, online := false, true
	b.apply(&engine.UpdateBareMetalHost{Name: "vm1", Patch: engine.BMHPatch{Online: &offline}})
	sameList(t, "requests going offline (writes)", writes(b.reconcile()), []string{
		`POST /redfish/v1/Systems/vm1/Actions/ComputerSystem.Reset {"ResetType":"ForceOff"}`,
	})
	if st := b.bmh().Status; st.PowerState != "Off" || st.ProvisioningState != engine.BMHAvailable || st.LastOperation != "power off" {
		t.Errorf("status offline = %+v", st)
	}
	if reqs := b.reconcile(); len(reqs) != 0 {
		t.Errorf("an offline BMH that is off got requests %q", reqs)
	}
	b.apply(&engine.RegisterHost{Host: engine.Host{ID: hostID, InfraEnvID: ieID, Status: "discovering-unbound", Inventory: inventory(t)}})
	b.reconcile() // pairs while offline
	b.apply(&engine.UpdateBareMetalHost{Name: "vm1", Patch: engine.BMHPatch{Online: &online}})
	sameList(t, "requests back online (writes)", writes(b.reconcile()), []string{
		`PATCH /redfish/v1/Systems/vm1 {"Boot":{"BootSourceOverrideEnabled":"Once","BootSourceOverrideTarget":"Pxe"}}`,
		`POST /redfish/v1/Systems/vm1/Actions/ComputerSystem.Reset {"ResetType":"On"}`,
	})
	b.reconcile()
	if st := b.bmh().Status; st.ProvisioningState != engine.BMHProvisioned || st.HostID != hostID {
		t.Errorf("status back online and paired = %+v", st)
	}
	if got := b.machine.history(); got != "start boot=Pxe once=true cd=false; stop; start boot=Pxe once=true cd=false" {
		t.Errorf("machine = %q", got)
	}
}
