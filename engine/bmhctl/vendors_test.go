package bmhctl_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/bmhctl"
	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/testbed/vendorbmc"
)

// vendorBed is a controller bed whose BMH is behind one vendor's BMC
// (testbed/vendorbmc: the vendor's Redfish tree and behaviour, over HTTPS
// with a self-signed certificate).
type vendorBed struct {
	*bed
	bmc *vendorbmc.BMC
}

func newVendorBed(t *testing.T, vendor, address string, mod func(*engine.BareMetalHost)) *vendorBed {
	t.Helper()
	b := newBed(t, func(o *bmhctl.Options) { o.BMC.PollInterval = time.Millisecond })
	m, err := vendorbmc.New(vendor)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewTLSServer(m)
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "https://")
	user, _ := b.sealer.Seal("vm1-bmc", engine.BMCSecretUsername, []byte(vendorbmc.User))
	pass, _ := b.sealer.Seal("vm1-bmc", engine.BMCSecretPassword, []byte(vendorbmc.Password))
	b.apply(&engine.PutSecret{Secret: engine.Secret{Name: "vm1-bmc", Type: engine.BMCSecretType,
		Data: map[string][]byte{engine.BMCSecretUsername: user, engine.BMCSecretPassword: pass}}})
	h := engine.BareMetalHost{
		Name: "vm1", Online: true, BootMACAddress: vmMAC, BootMode: engine.BootModeUEFI,
		Labels: map[string]string{engine.LabelInfraEnv: "rack1"},
		BMC: engine.BMC{Address: strings.Replace(address, "HOST", host, 1), CredentialsName: "vm1-bmc",
			DisableCertificateVerification: true},
	}
	if mod != nil {
		mod(&h)
	}
	b.apply(&engine.CreateBareMetalHost{Host: h})
	return &vendorBed{bed: b, bmc: m}
}

// A BareMetalHost on each vendor's BMC goes from registering to
// provisioned and on to its disk, as metal3 with Ironic takes it: the
// machine boots the discovery ISO from the virtual CD (iDRAC through its
// OEM boot-once after a slot that shows the image late and cannot be
// PATCHed; iLO with its boot-on-next-reset flag; Supermicro by the UefiCd
// target and a slot its collection does not list; Lenovo after a PATCH it
// shows late), the agent is paired, and after the install the machine
// boots its disk with the CD ejected.
func TestVendorsProvision(t *testing.T) {
	for _, tc := range []struct{ vendor, address string }{
		{"dell-idrac9", "idrac-virtualmedia://HOST/redfish/v1/Systems/System.Embedded.1"},
		{"dell-idrac9-fw4", "idrac-virtualmedia+https://HOST"},
		{"hpe-ilo5", "ilo5-virtualmedia://HOST/redfish/v1/Systems/1"},
		{"supermicro-x12", "redfish-virtualmedia://HOST/redfish/v1/Systems/1"},
		{"lenovo-xcc", "redfish-virtualmedia+https://HOST/redfish/v1/Systems/1"},
	} {
		t.Run(tc.vendor, func(t *testing.T) {
			b := newVendorBed(t, tc.vendor, tc.address, nil)
			iso := b.isoBase + "/images/" + ieID + "/tok3n-abc/discovery.iso"

			b.ctl.Reconcile(context.Background())
			st := b.bmh().Status
			if st.ProvisioningState != engine.BMHProvisioning || st.ErrorCount != 0 || st.PowerState != "On" {
				t.Fatalf("status after the first pass = %+v\nBMC requests:\n%s", st, strings.Join(b.bmc.Requests(), "\n"))
			}
			if boots := b.bmc.Boots(); len(boots) != 1 || boots[0] != "cd "+iso {
				t.Fatalf("the machine booted %q; want the discovery ISO from the virtual CD\nBMC requests:\n%s",
					boots, strings.Join(b.bmc.Requests(), "\n"))
			}

			b.apply(&engine.RegisterHost{Host: engine.Host{ID: hostID, InfraEnvID: ieID, Status: "discovering-unbound", Inventory: inventory(t)}})
			b.ctl.Reconcile(context.Background())
			if st := b.bmh().Status; st.ProvisioningState != engine.BMHProvisioned || st.HostID != hostID {
				t.Fatalf("status after the agent registered = %+v", st)
			}
			if h := b.host(); h.BMHName != "vm1" || !h.Approved {
				t.Errorf("host after pairing = %+v", h)
			}

			b.apply(&engine.UpdateHost{ID: hostID, Patch: engine.HostPatch{Progress: &engine.Progress{CurrentStage: string(models.HostStageRebooting)}}})
			b.ctl.Reconcile(context.Background())
			if bm := b.bmh(); !bm.Detached() || bm.Status.ProvisioningState != engine.BMHDetached {
				t.Fatalf("BMH after Rebooting = %+v", bm)
			}
			if boots := b.bmc.Boots(); len(boots) != 2 || boots[1] != "disk" {
				t.Errorf("the machine booted %q; want the disk after the install", boots)
			}
			for _, p := range b.bmc.Paths() {
				if doc := b.bmc.Doc(p); doc["Inserted"] == true && strings.Contains(doc["Image"].(string), "discovery.iso") {
					t.Errorf("slot %s still holds the ISO after the install", p)
				}
			}
			for _, e := range b.events() {
				if strings.Contains(e, "tok3n") || strings.Contains(e, vendorbmc.Password) {
					t.Errorf("event shows the image token or the password: %s", e)
				}
			}
		})
	}
}

// bmcChangingPatch changes the BMH (its boot mode), which clears a
// permanent error.
func bmcChangingPatch(b *vendorBed) {
	mode := engine.BootModeUEFISecureBoot
	b.apply(&engine.UpdateBareMetalHost{Name: "vm1", Patch: engine.BMHPatch{BootMode: &mode}})
}

// An operation the BMC does not support is not retried: the status and
// the event say so, later passes send nothing, and a change of the BMH
// tries again.
func TestUnsupportedIsPermanent(t *testing.T) {
	b := newVendorBed(t, "hpe-ilo5", "ilo5-virtualmedia://HOST", nil)
	b.bmc.SetDoc("/redfish/v1/Managers/1", "VirtualMedia", nil) // no virtual media at all
	b.ctl.Reconcile(context.Background())
	st := b.bmh().Status
	if st.ErrorType != bmhctl.ErrorUnsupported || !strings.HasSuffix(st.ErrorMessage, "not retried until the BareMetalHost changes") ||
		!st.NextRetryAt.IsZero() {
		t.Fatalf("status = %+v", st)
	}
	events := b.events()
	if last := events[len(events)-1]; !strings.Contains(last, "not retried until the BareMetalHost changes") {
		t.Errorf("last event = %q", last)
	}
	b.bmc.Requests()
	b.clk.add(100 * testBackoff)
	b.ctl.Reconcile(context.Background())
	if reqs := b.bmc.Requests(); len(reqs) != 0 {
		t.Errorf("a permanent error was retried: %q", reqs)
	}
	bmcChangingPatch(b)
	b.ctl.Reconcile(context.Background())
	if reqs := b.bmc.Requests(); len(reqs) == 0 {
		t.Error("the changed BMH was not tried again")
	}
}

// Refused credentials are tried MaxCredentialAttempts times (at the
// backoff), then no more until the BMH changes.
func TestBadCredentialsStop(t *testing.T) {
	b := newVendorBed(t, "dell-idrac9", "idrac-virtualmedia://HOST", nil)
	wrong, _ := b.sealer.Seal("vm1-bmc", engine.BMCSecretPassword, []byte("wrong-password"))
	user, _ := b.sealer.Seal("vm1-bmc", engine.BMCSecretUsername, []byte(vendorbmc.User))
	b.apply(&engine.PutSecret{Secret: engine.Secret{Name: "vm1-bmc", Type: engine.BMCSecretType,
		Data: map[string][]byte{engine.BMCSecretUsername: user, engine.BMCSecretPassword: wrong}}})
	for i := 1; i <= bmhctl.MaxCredentialAttempts+2; i++ {
		b.ctl.Reconcile(context.Background())
		b.clk.add(100 * testBackoff)
	}
	st := b.bmh().Status
	if st.ErrorType != bmhctl.ErrorBadCredentials || st.ErrorCount != bmhctl.MaxCredentialAttempts ||
		!strings.Contains(st.ErrorMessage, "not retried until the BareMetalHost changes") {
		t.Errorf("status after %d passes = %+v", bmhctl.MaxCredentialAttempts+2, st)
	}
	logins := 0
	for _, r := range b.bmc.Requests() {
		if strings.Contains(r, "[wrong credentials]") && !strings.HasPrefix(r, "GET /redfish/v1/ ") {
			logins++
		}
	}
	if logins != bmhctl.MaxCredentialAttempts {
		t.Errorf("requests with the wrong password = %d, want %d", logins, bmhctl.MaxCredentialAttempts)
	}
}
