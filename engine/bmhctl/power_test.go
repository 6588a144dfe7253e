package bmhctl_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/bmhctl"
	"github.com/rackboot/rackboot/engine/models"
)

// waitPower waits (deadline, no sleep: on the store's changes) until the
// stored power state of vm1 is want.
func (b *bed) waitPower(ctx context.Context, changes <-chan engine.Change, want string) {
	b.t.Helper()
	b.waitUntil(ctx, changes, func() bool { return b.bmh().Status.PowerState == want },
		func() string {
			return fmt.Sprintf("the stored power state did not become %s: %+v", want, b.bmh().Status)
		})
}

// waitUntil re-checks cond on every store change until it holds, failing
// with why() after a generous deadline.
func (b *bed) waitUntil(ctx context.Context, changes <-chan engine.Change, cond func() bool, why func() string) {
	b.t.Helper()
	deadline := time.After(30 * time.Second)
	for !cond() {
		select {
		case <-changes:
		case <-deadline:
			b.t.Fatal(why())
		case <-ctx.Done():
			b.t.Fatal(ctx.Err())
		}
	}
}

// powerEvents are the bmh_power_state events recorded so far.
func (b *bed) powerEvents() []string {
	var found []string
	for _, e := range b.events() {
		if strings.HasPrefix(e, "bmh_power_state:") {
			found = append(found, e)
		}
	}
	return found
}

// A machine powered on and off behind rackboot's back (its power button):
// Run's periodic refresh stores each new power state, without acting on a
// BMH that is only registered.
func TestPowerRefreshFollowsMachine(t *testing.T) {
	b := newBed(t, func(o *bmhctl.Options) { o.PowerInterval = 20 * time.Millisecond })
	b.addBMH("redfish", bmcPass, func(h *engine.BareMetalHost) { h.Labels = nil })
	b.reconcile()
	if st := b.bmh().Status; st.ProvisioningState != engine.BMHAvailable || st.PowerState != "Off" {
		t.Fatalf("status after registering = %+v", st)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.ctl.Run(ctx)
	}()
	changes := b.st.Subscribe(ctx)
	b.machine.setOn(true)
	b.waitPower(ctx, changes, "On")
	b.machine.setOn(false)
	b.waitPower(ctx, changes, "Off")
	// The event follows the stored state in the next entry.
	b.waitUntil(ctx, changes, func() bool { return len(b.powerEvents()) >= 2 },
		func() string { return fmt.Sprintf("power events: %q", b.powerEvents()) })
	cancel()
	<-done
	if w := writes(b.rec.take()); len(w) != 0 {
		t.Errorf("the refresh drove the BMC: %q", w)
	}
	if got := b.machine.history(); got != "" {
		t.Errorf("machine = %q, want no action", got)
	}
	sameList(t, "power events", b.powerEvents(), []string{
		"bmh_power_state: BareMetalHost vm1: power state On (was Off), found by the periodic check",
		"bmh_power_state: BareMetalHost vm1: power state Off (was On), found by the periodic check",
	})
}

// A refresh that finds what is stored writes nothing, and it asks no
// failing BMC (that waits for its backoff) and no detached BMH.
func TestPowerRefreshUnchangedWritesNothing(t *testing.T) {
	b := newBed(t)
	b.addBMH("redfish", bmcPass, nil)
	b.reconcile() // provisioning, On
	entries := b.st.Entries()
	b.ctl.RefreshPower(context.Background())
	reqs := b.rec.take()
	if !contains(reqs, "GET /redfish/v1/Systems/vm1") || len(writes(reqs)) != 0 {
		t.Errorf("refresh requests = %q, want a read of the system only", reqs)
	}
	if got := b.st.Entries(); got != entries {
		t.Errorf("an unchanged power state wrote %d store entries", got-entries)
	}

	bad := newBed(t)
	bad.addBMH("redfish", "wrong-password", nil)
	bad.reconcile() // bad credentials: in backoff
	bad.ctl.RefreshPower(context.Background())
	if reqs := bad.rec.take(); len(reqs) != 0 {
		t.Errorf("refresh asked a BMC in backoff: %q", reqs)
	}

	val := "x"
	b.apply(&engine.UpdateBareMetalHost{Name: "vm1", Patch: engine.BMHPatch{Annotations: map[string]*string{engine.AnnotationDetached: &val}}})
	b.machine.setOn(false)
	b.ctl.RefreshPower(context.Background())
	if reqs := b.rec.take(); len(reqs) != 0 {
		t.Errorf("refresh asked the BMC of a detached BMH: %q", reqs)
	}
}

// An online BMH found off while it boots into discovery is booted into
// discovery again (spec.online true: powered on), as metal3 does.
func TestPowerRefreshOnlineFoundOff(t *testing.T) {
	b := newBed(t)
	b.addBMH("redfish", bmcPass, nil)
	b.reconcile()
	b.machine.setOn(false)
	b.ctl.RefreshPower(context.Background())
	sameList(t, "requests after the refresh (writes)", writes(b.rec.take()), []string{
		`PATCH /redfish/v1/Systems/vm1 {"Boot":{"BootSourceOverrideEnabled":"Once","BootSourceOverrideTarget":"Pxe"}}`,
		`POST /redfish/v1/Systems/vm1/Actions/ComputerSystem.Reset {"ResetType":"On"}`,
	})
	if st := b.bmh().Status; st.PowerState != "On" || st.ProvisioningState != engine.BMHProvisioning {
		t.Errorf("status = %+v", st)
	}
	if got := b.machine.history(); got != "start boot=Pxe once=true cd=false; start boot=Pxe once=true cd=false" {
		t.Errorf("machine = %q", got)
	}
}

// A paired BMH whose host wrote its disk and is found off is powered on
// from the disk (one-time Hdd, power on, detached), not into discovery.
func TestPowerRefreshFoundOffAfterDiskWrite(t *testing.T) {
	b := newBed(t)
	b.addBMH("redfish", bmcPass, nil)
	b.reconcile()
	b.apply(&engine.RegisterHost{Host: engine.Host{ID: hostID, InfraEnvID: ieID, Status: "discovering-unbound", Inventory: inventory(t)}})
	b.reconcile() // paired: provisioned
	b.apply(&engine.UpdateHost{ID: hostID, Patch: engine.HostPatch{Progress: &engine.Progress{CurrentStage: string(models.HostStageRebooting)}}})
	b.machine.setOn(false)
	b.rec.take()
	b.ctl.RefreshPower(context.Background())
	sameList(t, "requests after the refresh (writes)", writes(b.rec.take()), []string{
		`PATCH /redfish/v1/Systems/vm1 {"Boot":{"BootSourceOverrideEnabled":"Once","BootSourceOverrideTarget":"Hdd"}}`,
		`POST /redfish/v1/Systems/vm1/Actions/ComputerSystem.Reset {"ResetType":"On"}`,
	})
	if bm := b.bmh(); !bm.Detached() || bm.Status.PowerState != "On" {
		t.Errorf("BMH = %+v", bm)
	}
}

// An offline BMH found on is powered off again.
func TestPowerRefreshOfflineFoundOn(t *testing.T) {
	b := newBed(t)
	offline := false
	b.addBMH("redfish", bmcPass, func(h *engine.BareMetalHost) { h.Online = offline })
	b.reconcile() // registered: Off
	b.machine.setOn(true)
	b.ctl.RefreshPower(context.Background())
	sameList(t, "requests after the refresh (writes)", writes(b.rec.take()), []string{
		`POST /redfish/v1/Systems/vm1/Actions/ComputerSystem.Reset {"ResetType":"ForceOff"}`,
	})
	if st := b.bmh().Status; st.PowerState != "Off" || st.ProvisioningState != engine.BMHAvailable {
		t.Errorf("status = %+v", st)
	}
}

// A BMC that stops answering: the refresh logs a warning (no password)
// and leaves the stored status as it was.
func TestPowerRefreshUnansweringBMC(t *testing.T) {
	b := newBed(t)
	b.addBMH("redfish", bmcPass, nil)
	b.reconcile()
	before := b.bmh()
	entries := b.st.Entries()
	b.bmcSrv.Close()
	b.machine.setOn(false)
	b.ctl.RefreshPower(context.Background())
	after := b.bmh()
	if after.Revision != before.Revision || after.Status.PowerState != "On" || after.Status.ErrorCount != 0 || b.st.Entries() != entries {
		t.Errorf("status after an unanswered refresh = %+v (was %+v)", after.Status, before.Status)
	}
	logs := b.logs.String()
	var warned bool
	for _, l := range strings.Split(logs, "\n") {
		if strings.Contains(l, "level=WARN") && strings.Contains(l, "power state refresh failed") &&
			strings.Contains(l, "bmh=vm1") && strings.Contains(l, "error_type=unreachable") {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no warning about the refresh in the log:\n%s", logs)
	}
	if strings.Contains(logs, bmcPass) {
		t.Errorf("the log shows the password:\n%s", logs)
	}
}

// PowerInterval must be positive; zero is the default.
func TestPowerIntervalOption(t *testing.T) {
	o := bmhctl.Options{Store: newBed(t).st, Unseal: func(string, string, []byte) ([]byte, error) { return nil, nil }}
	if _, err := bmhctl.New(o); err != nil {
		t.Errorf("default PowerInterval: %v", err)
	}
	o.PowerInterval = -time.Second
	if _, err := bmhctl.New(o); !errors.Is(err, bmhctl.ErrOptions) {
		t.Errorf("negative PowerInterval: err = %v, want ErrOptions", err)
	}
}
