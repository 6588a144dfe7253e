package redfish_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/rackboot/rackboot/bmc"
)

// fuzzPaths are the resources of the hpe-ilo5 mockup whose answer the fuzzer
// replaces.
var fuzzPaths = []string{
	"/redfish/v1/",
	"/redfish/v1/Systems",
	"/redfish/v1/Systems/1",
	"/redfish/v1/Managers/1",
	"/redfish/v1/Managers/1/VirtualMedia",
	"/redfish/v1/Managers/1/VirtualMedia/2",
	"/redfish/v1/Systems/1/EthernetInterfaces",
	"/redfish/v1/Systems/1/EthernetInterfaces/1",
	"/redfish/v1/Systems/1/Processors/1",
}

// FuzzAnswers serves arbitrary bytes as one resource of an otherwise sane
// BMC and runs every operation: the driver must not panic or hang, and every
// error must wrap one of the bmc sentinels.
func FuzzAnswers(f *testing.F) {
	for i, seed := range []string{
		`{}`, `[]`, `null`, `{"PowerState": 7}`, `<html>login</html>`, ``,
		`{"Members": [{"@odata.id": "http://evil.example/x"}, {"@odata.id": "/redfish/v1/../../etc"}]}`,
		`{"Actions": {"#ComputerSystem.Reset": {"target": "//evil.example/reset"}}, "PowerState": "Off"}`,
		`{"VirtualMedia": {"@odata.id": "/redfish/v1/Managers/1/VirtualMedia"}, "MediaTypes": ["CD"], "Inserted": "yes"}`,
		`{"MACAddress": "zz:zz", "SpeedMbps": -1, "Links": {"HostInterface": 3}}`,
		`{"Members": [{"@odata.id": "/redfish/v1/Systems/1"}, {"@odata.id": "/redfish/v1/Systems/2"}]}`,
	} {
		f.Add(uint8(i), []byte(seed))
	}
	m := newMockBMC(f, "hpe-ilo5")
	var mu sync.Mutex
	var target string
	var answer []byte
	m.Override = func(w http.ResponseWriter, r *http.Request) bool {
		mu.Lock()
		defer mu.Unlock()
		if r.Method != http.MethodGet || r.URL.Path != target && r.URL.Path+"/" != target {
			return false
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(answer)
		return true
	}
	srv := start(f, m)
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		mu.Lock()
		target, answer = fuzzPaths[int(which)%len(fuzzPaths)], data
		mu.Unlock()
		a, err := bmc.ParseAddress("ilo5-redfish+http://" + srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		if which&0x80 != 0 {
			a.SystemPath = "" // resolve through the Systems collection
		}
		d := redfishNew(a, goodCreds)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, errState := d.PowerState(ctx)
		_, errInv := d.Inventory(ctx)
		for _, err := range []error{
			errState, errInv,
			d.PowerOn(ctx), d.Reset(ctx),
			d.SetBootOnce(ctx, bmc.BootCd, bmc.BootModeUEFI),
			d.InsertMedia(ctx, isoURL), d.EjectMedia(ctx),
		} {
			if err == nil {
				continue
			}
			if !errors.Is(err, bmc.ErrBMC) && !errors.Is(err, bmc.ErrUnsupported) &&
				!errors.Is(err, bmc.ErrUnreachable) && !errors.Is(err, bmc.ErrBadCredentials) {
				t.Fatalf("unclassified error: %v", err)
			}
			if errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("driver hung: %v", err)
			}
		}
		for _, r := range m.requests() {
			if len(r) > 0 && r[0] != 'G' && r[0] != 'P' {
				t.Fatalf("unexpected request %s", r)
			}
		}
	})
}
