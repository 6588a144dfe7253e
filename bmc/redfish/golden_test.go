package redfish_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/bmc"
	"github.com/rackboot/rackboot/bmc/redfish"
)

var update = flag.Bool("update", false, "rewrite golden files")

const (
	isoURL   = "http://192.0.2.10:8080/images/3f1c9a2e/discovery.iso"
	otherISO = "https://192.0.2.10:8443/images/old/discovery.iso"
)

// operations are the driver calls whose request sequences are golden, per
// vendor. setup, if set, runs first on its own driver and is not recorded.
var operations = []struct {
	name  string
	setup func(context.Context, *redfish.Driver) error
	run   func(context.Context, *redfish.Driver) (any, error)
}{
	{"power-status", nil, func(ctx context.Context, d *redfish.Driver) (any, error) { return d.PowerState(ctx) }},
	{"power-on", nil, func(ctx context.Context, d *redfish.Driver) (any, error) { return nil, d.PowerOn(ctx) }},
	{"power-off", nil, func(ctx context.Context, d *redfish.Driver) (any, error) { return nil, d.PowerOff(ctx) }},
	{"graceful-off", powerOn, func(ctx context.Context, d *redfish.Driver) (any, error) { return nil, d.GracefulOff(ctx) }},
	{"reset", powerOn, func(ctx context.Context, d *redfish.Driver) (any, error) { return nil, d.Reset(ctx) }},
	{"boot-pxe-uefi", nil, func(ctx context.Context, d *redfish.Driver) (any, error) {
		return nil, d.SetBootOnce(ctx, bmc.BootPxe, bmc.BootModeUEFI)
	}},
	{"boot-cd-uefi", nil, func(ctx context.Context, d *redfish.Driver) (any, error) {
		return nil, d.SetBootOnce(ctx, bmc.BootCd, bmc.BootModeUEFI)
	}},
	{"boot-hdd-legacy", nil, func(ctx context.Context, d *redfish.Driver) (any, error) {
		return nil, d.SetBootOnce(ctx, bmc.BootHdd, bmc.BootModeLegacy)
	}},
	{"boot-uefihttp", nil, func(ctx context.Context, d *redfish.Driver) (any, error) {
		return nil, d.SetBootOnce(ctx, bmc.BootUefiHTTP, bmc.BootModeUnchanged)
	}},
	{"insert", nil, func(ctx context.Context, d *redfish.Driver) (any, error) { return nil, d.InsertMedia(ctx, isoURL) }},
	{"insert-replace", insertOther, func(ctx context.Context, d *redfish.Driver) (any, error) {
		return nil, d.InsertMedia(ctx, isoURL)
	}},
	{"insert-again", insertISO, func(ctx context.Context, d *redfish.Driver) (any, error) {
		return nil, d.InsertMedia(ctx, isoURL)
	}},
	{"eject", insertISO, func(ctx context.Context, d *redfish.Driver) (any, error) { return nil, d.EjectMedia(ctx) }},
	{"eject-empty", nil, func(ctx context.Context, d *redfish.Driver) (any, error) { return nil, d.EjectMedia(ctx) }},
	{"inventory", nil, func(ctx context.Context, d *redfish.Driver) (any, error) { return d.Inventory(ctx) }},
}

func powerOn(ctx context.Context, d *redfish.Driver) error     { return d.PowerOn(ctx) }
func insertISO(ctx context.Context, d *redfish.Driver) error   { return d.InsertMedia(ctx, isoURL) }
func insertOther(ctx context.Context, d *redfish.Driver) error { return d.InsertMedia(ctx, otherISO) }

func newDriver(t testing.TB, srv string, creds bmc.Credentials, opts bmc.Options) *redfish.Driver {
	t.Helper()
	a, err := bmc.ParseAddress("redfish+http://" + strings.TrimPrefix(srv, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	if opts.Backoff == 0 {
		opts.Backoff = time.Millisecond
	}
	if opts.PollInterval == 0 {
		opts.PollInterval = time.Millisecond
	}
	return redfish.New(a, creds, opts)
}

var goodCreds = bmc.Credentials{Username: testUser, Password: testPass}

// TestGoldenRequests runs every operation against every vendor's mockup and
// compares the requests the driver sent, its result and the BMC's state
// afterwards with testdata/golden/<vendor>/<operation>.txt.
func TestGoldenRequests(t *testing.T) {
	for _, vendor := range vendors(t) {
		for _, op := range operations {
			t.Run(vendor+"/"+op.name, func(t *testing.T) {
				m := newMockBMC(t, vendor)
				srv := start(t, m)
				ctx := t.Context()
				if op.setup != nil {
					if err := op.setup(ctx, newDriver(t, srv.URL, goodCreds, bmc.Options{})); err != nil {
						t.Fatalf("setup: %v", err)
					}
					m.requests()
				}
				res, err := op.run(ctx, newDriver(t, srv.URL, goodCreds, bmc.Options{}))
				got := strings.ReplaceAll(transcript(m, res, err), strings.TrimPrefix(srv.URL, "http://"), "bmc.test")
				checkGolden(t, filepath.Join("testdata", "golden", vendor, op.name+".txt"), got)
			})
		}
	}
}

func transcript(m *mockBMC, res any, err error) string {
	var b strings.Builder
	for _, r := range m.requests() {
		b.WriteString(r + "\n")
	}
	switch {
	case err != nil:
		fmt.Fprintf(&b, "=> error: %v\n", err)
	case res != nil:
		out, _ := json.MarshalIndent(res, "", "  ")
		fmt.Fprintf(&b, "=> %s\n", out)
	default:
		b.WriteString("=> ok\n")
	}
	sys := m.doc(systemPath(m))
	boot, _ := sys["Boot"].(map[string]any)
	fmt.Fprintf(&b, "state: power=%v boot=%v/%v/%v", sys["PowerState"], boot["BootSourceOverrideEnabled"],
		boot["BootSourceOverrideTarget"], boot["BootSourceOverrideMode"])
	cd := m.doc(cdPath(m))
	fmt.Fprintf(&b, " cd: inserted=%v image=%q write-protected=%v\n", cd["Inserted"], cd["Image"], cd["WriteProtected"])
	return b.String()
}

func systemPath(m *mockBMC) string {
	coll := m.doc("/redfish/v1/Systems")
	first := coll["Members"].([]any)[0].(map[string]any)
	return first["@odata.id"].(string)
}

func checkGolden(t *testing.T, file, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run with -update to accept):\n--- got\n%s--- want\n%s", file, got, want)
	}
}

func redfishNew(a bmc.Address, c bmc.Credentials) *redfish.Driver {
	return redfish.New(a, c, bmc.Options{Backoff: time.Millisecond})
}

func redfishOpen(address string) (*redfish.Driver, error) {
	return redfish.Open(address, goodCreds, bmc.Options{})
}
