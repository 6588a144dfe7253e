package redfish

import (
	"errors"
	"net/http"
	"strings"
	"testing"
)

// refuseTransport fails every download, so fuzzed image URLs go nowhere.
type refuseTransport struct{}

func (refuseTransport) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, errors.New("downloads are off in this test")
}

// FuzzRequests sends arbitrary bodies to every writable resource: the
// emulator must answer with a status (never panic), and a 4xx answer must
// leave the boot override and the CD slot as they were.
func FuzzRequests(f *testing.F) {
	for _, s := range []string{
		`{"Boot":{"BootSourceOverrideTarget":"Pxe","BootSourceOverrideEnabled":"Once"}}`,
		`{"Boot":{"BootSourceOverrideTarget":"Cd","BootSourceOverrideMode":"UEFI"}}`,
		`{"ResetType":"On"}`, `{"ResetType":"ForceRestart"}`, `{"ResetType":7}`,
		`{"Image":"http://127.0.0.1/x.iso","Inserted":true}`, `{"Image":null,"Inserted":false}`,
		`{}`, ``, `[]`, `null`, `{"Boot":null}`, `{"Boot":{}} x`, "\x00",
	} {
		for path := range 4 {
			f.Add(uint8(path), s)
		}
	}
	paths := []string{
		"PATCH /redfish/v1/Systems/vm1",
		"POST /redfish/v1/Systems/vm1/Actions/ComputerSystem.Reset",
		"POST /redfish/v1/Managers/vm1/VirtualMedia/Cd/Actions/VirtualMedia.InsertMedia",
		"PATCH /redfish/v1/Systems/vm1/VirtualMedia/Cd",
	}
	f.Fuzz(func(t *testing.T, which uint8, body string) {
		f := &fakeMachine{}
		svc, err := New(Config{Username: testUser, Password: testPass, MediaDir: t.TempDir(),
			Client: &http.Client{Transport: refuseTransport{}}},
			System{ID: "vm1", MAC: testMAC, Machine: f})
		if err != nil {
			t.Fatal(err)
		}
		method, path, _ := strings.Cut(paths[int(which)%len(paths)], " ")
		code, _, _ := call(t, svc, method, path, body)
		if code >= 500 || code == 0 {
			t.Fatalf("%s %s %q = %d", method, path, body, code)
		}
		if code >= 400 {
			b, _ := svc.Boot("vm1")
			m, _ := svc.Media("vm1")
			if b != (BootOverride{TargetNone, EnabledDisabled}) || m.Inserted || f.history() != "" {
				t.Fatalf("%s %s %q = %d but changed boot %v, media %v, machine %q", method, path, body, code, b, m, f.history())
			}
		}
	})
}
