package redfish

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// call sends method path body to h with the test credentials (or creds
// when given) and returns the status, the ETag and the decoded JSON body.
func call(t *testing.T, h http.Handler, method, path, body string, hdr ...string) (int, http.Header, map[string]any) {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.SetBasicAuth(testUser, testPass)
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Authorization" && hdr[i+1] == "" {
			req.Header.Del("Authorization")
			continue
		}
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var doc map[string]any
	if b, _ := io.ReadAll(rec.Body); len(b) > 0 {
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s %s: answer is not JSON: %q", method, path, b)
		}
	}
	return rec.Code, rec.Header(), doc
}

func field(doc map[string]any, keys ...string) any {
	var v any = doc
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func TestAuth(t *testing.T) {
	svc, _ := newTestService(t, 0)
	if code, _, doc := call(t, svc, "GET", "/redfish/v1/", "", "Authorization", ""); code != 200 || field(doc, "Systems", "@odata.id") != "/redfish/v1/Systems" {
		t.Errorf("service root without credentials = %d %v, want 200 (it is public)", code, doc)
	}
	code, hdr, _ := call(t, svc, "GET", "/redfish/v1/Systems", "", "Authorization", "")
	if code != 401 || !strings.HasPrefix(hdr.Get("WWW-Authenticate"), "Basic") {
		t.Errorf("no credentials = %d %v, want 401 with a Basic challenge", code, hdr)
	}
	req := httptest.NewRequest("GET", "/redfish/v1/Systems/vm1", nil)
	req.SetBasicAuth(testUser, "wrong")
	rec := httptest.NewRecorder()
	svc.ServeHTTP(rec, req)
	if rec.Code != 401 || strings.Contains(rec.Body.String(), testPass) {
		t.Errorf("wrong password = %d %s, want 401 without the password", rec.Code, rec.Body)
	}
	if code, _, doc := call(t, svc, "GET", "/redfish/v1/Systems", ""); code != 200 || field(doc, "Members@odata.count") != 1.0 {
		t.Errorf("Systems = %d %v", code, doc)
	}
}

func TestSystemDocument(t *testing.T) {
	svc, _ := newTestService(t, 0)
	code, _, doc := call(t, svc, "GET", "/redfish/v1/Systems/vm1/", "")
	if code != 200 || doc["PowerState"] != "Off" || field(doc, "Boot", "BootSourceOverrideMode") != "UEFI" ||
		field(doc, "Actions", "#ComputerSystem.Reset", "target") != "/redfish/v1/Systems/vm1/Actions/ComputerSystem.Reset" {
		t.Fatalf("system = %d %v", code, doc)
	}
	_, _, nic := call(t, svc, "GET", "/redfish/v1/Systems/vm1/EthernetInterfaces/nic0", "")
	if nic["MACAddress"] != testMAC {
		t.Errorf("NIC = %v, want MAC %s", nic, testMAC)
	}
	for _, p := range []string{"/redfish/v1/Systems/vm2", "/redfish/v1/Managers/vm1/VirtualMedia/Floppy", "/redfish/v1/Chassis"} {
		if code, _, _ := call(t, svc, "GET", p, ""); code != 404 {
			t.Errorf("GET %s = %d, want 404", p, code)
		}
	}
}

func TestBootOnceAppliedAtPowerOn(t *testing.T) {
	svc, f := newTestService(t, 0)
	patch := `{"Boot":{"BootSourceOverrideTarget":"Pxe","BootSourceOverrideEnabled":"Once","BootSourceOverrideMode":"UEFI"}}`
	if code, _, doc := call(t, svc, "PATCH", "/redfish/v1/Systems/vm1", patch); code != 204 {
		t.Fatalf("PATCH = %d %v", code, doc)
	}
	if b, _ := svc.Boot("vm1"); b != (BootOverride{TargetPxe, EnabledOnce}) || f.history() != "" {
		t.Fatalf("after PATCH: boot %v, machine %q; want Pxe/Once and the machine untouched", b, f.history())
	}
	reset := func(typ string) {
		t.Helper()
		if code, _, doc := call(t, svc, "POST", "/redfish/v1/Systems/vm1/Actions/ComputerSystem.Reset", `{"ResetType":"`+typ+`"}`); code != 204 {
			t.Fatalf("Reset %s = %d %v", typ, code, doc)
		}
	}
	reset("On")
	reset("On") // already on: nothing
	_, _, doc := call(t, svc, "GET", "/redfish/v1/Systems/vm1", "")
	if doc["PowerState"] != "On" || field(doc, "Boot", "BootSourceOverrideTarget") != "None" ||
		field(doc, "Boot", "BootSourceOverrideEnabled") != "Disabled" {
		t.Errorf("after On: %v, want On with the override used up", doc)
	}
	reset("ForceRestart") // no override: warm reset
	reset("ForceOff")
	reset("ForceOff")
	reset("On")
	if got, want := f.history(), "start:Pxe reset stop start:"; got != want {
		t.Errorf("machine calls = %q, want %q", got, want)
	}
}

func TestForceRestartWithOverrideIsCold(t *testing.T) {
	svc, f := newTestService(t, 0)
	if err := svc.Reset(t.Context(), "vm1", "On"); err != nil {
		t.Fatal(err)
	}
	if err := svc.SetBoot("vm1", TargetHdd, EnabledContinuous, ""); err != nil {
		t.Fatal(err)
	}
	for _, typ := range []string{"ForceRestart", "PowerCycle", "GracefulShutdown", "ForceRestart"} {
		if err := svc.Reset(t.Context(), "vm1", typ); err != nil {
			t.Fatal(err)
		}
	}
	// Continuous stays: every power-on boots the disk.
	if got, want := f.history(), "start: stop start:Hdd stop start:Hdd shutdown start:Hdd"; got != want {
		t.Errorf("machine calls = %q, want %q", got, want)
	}
}

func TestBadRequestsChangeNothing(t *testing.T) {
	svc, f := newTestService(t, 0)
	for _, c := range []struct{ method, path, body string }{
		{"PATCH", "/redfish/v1/Systems/vm1", `{"Boot":{"BootSourceOverrideTarget":"Floppy"}}`},
		{"PATCH", "/redfish/v1/Systems/vm1", `{"Boot":{"BootSourceOverrideTarget":"Pxe","BootSourceOverrideEnabled":"Always"}}`},
		{"PATCH", "/redfish/v1/Systems/vm1", `{"Boot":{"BootSourceOverrideTarget":"Pxe","BootSourceOverrideMode":"Legacy"}}`},
		{"PATCH", "/redfish/v1/Systems/vm1", `{"AssetTag":"x"}`},
		{"PATCH", "/redfish/v1/Systems/vm1", `{"Boot":`},
		{"PATCH", "/redfish/v1/Systems/vm1", `{"Boot":{}} {}`},
		{"POST", "/redfish/v1/Systems/vm1/Actions/ComputerSystem.Reset", `{"ResetType":"Nmi"}`},
		{"POST", "/redfish/v1/Systems/vm1/Actions/ComputerSystem.Reset", `[]`},
		{"POST", "/redfish/v1/Managers/vm1/VirtualMedia/Cd/Actions/VirtualMedia.InsertMedia", `{"Image":"ftp://127.0.0.1/x.iso"}`},
		{"POST", "/redfish/v1/Managers/vm1/VirtualMedia/Cd/Actions/VirtualMedia.InsertMedia", `{"Image":"/x.iso"}`},
		{"POST", "/redfish/v1/Managers/vm1/VirtualMedia/Cd/Actions/VirtualMedia.InsertMedia", `{"Image":"http://127.0.0.1:1/x.iso","TransferProtocolType":"NFS"}`},
	} {
		code, _, doc := call(t, svc, c.method, c.path, c.body)
		if code != 400 || field(doc, "error", "message") == nil {
			t.Errorf("%s %s %s = %d %v, want 400 with a Redfish error", c.method, c.path, c.body, code, doc)
		}
	}
	if b, _ := svc.Boot("vm1"); b != (BootOverride{TargetNone, EnabledDisabled}) || f.history() != "" {
		t.Errorf("boot %v, machine %q: bad requests changed something", b, f.history())
	}
	if m, _ := svc.Media("vm1"); m.Inserted || len(mediaFiles(t, svc)) != 0 {
		t.Errorf("media %v, files %v after bad inserts", m, mediaFiles(t, svc))
	}
}

func TestIfMatch(t *testing.T) {
	svc, _ := newTestService(t, 0)
	_, hdr, _ := call(t, svc, "GET", "/redfish/v1/Systems/vm1", "")
	patch := `{"Boot":{"BootSourceOverrideTarget":"Cd","BootSourceOverrideEnabled":"Once"}}`
	if code, _, _ := call(t, svc, "PATCH", "/redfish/v1/Systems/vm1", patch, "If-Match", `W/"0"`); code != 412 {
		t.Errorf("stale If-Match = %d, want 412", code)
	}
	if code, _, _ := call(t, svc, "PATCH", "/redfish/v1/Systems/vm1", patch, "If-Match", hdr.Get("ETag")); code != 204 {
		t.Errorf("current If-Match = %d, want 204", code)
	}
	if b, _ := svc.Boot("vm1"); b.Target != TargetCd {
		t.Errorf("boot = %v", b)
	}
}

func TestVirtualMedia(t *testing.T) {
	svc, f := newTestService(t, 0)
	img := imageServer(t, "ISO-ONE")
	for _, base := range []string{"/redfish/v1/Managers/vm1/VirtualMedia/Cd", "/redfish/v1/Systems/vm1/VirtualMedia/Cd"} {
		code, _, doc := call(t, svc, "POST", base+"/Actions/VirtualMedia.InsertMedia",
			`{"Image":"`+img+`/disc.iso","Inserted":true,"WriteProtected":true}`)
		if code != 204 {
			t.Fatalf("insert at %s = %d %v", base, code, doc)
		}
		_, _, doc = call(t, svc, "GET", base, "")
		if doc["Inserted"] != true || doc["Image"] != img+"/disc.iso" ||
			field(doc, "Actions", "#VirtualMedia.EjectMedia", "target") != base+"/Actions/VirtualMedia.EjectMedia" {
			t.Errorf("slot after insert = %v", doc)
		}
		if code, _, _ := call(t, svc, "POST", base+"/Actions/VirtualMedia.EjectMedia", `{}`); code != 204 {
			t.Errorf("eject = %d", code)
		}
	}
	// Inserted while off: the image goes into the drive at power-on.
	if err := svc.Insert(t.Context(), "vm1", img+"/disc.iso"); err != nil {
		t.Fatal(err)
	}
	if err := svc.Reset(t.Context(), "vm1", "On"); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(f.cd); err != nil || string(b) != "ISO-ONE" {
		t.Fatalf("CD at power-on = %q %v, want the downloaded image", b, err)
	}
	first := f.cd
	// PATCH-style insert while running: QMP change, the old file goes.
	if code, _, doc := call(t, svc, "PATCH", "/redfish/v1/Managers/vm1/VirtualMedia/Cd", `{"Image":"`+img+`/other.iso","Inserted":true}`); code != 204 {
		t.Fatalf("PATCH insert = %d %v", code, doc)
	}
	if _, err := os.Stat(first); !os.IsNotExist(err) || f.cd == first {
		t.Errorf("replaced image %s still there (%v) or not changed in the drive", first, err)
	}
	if code, _, _ := call(t, svc, "PATCH", "/redfish/v1/Managers/vm1/VirtualMedia/Cd", `{"Image":null,"Inserted":false}`); code != 204 {
		t.Errorf("PATCH eject = %d", code)
	}
	if m, _ := svc.Media("vm1"); m.Inserted || f.cd != "" || len(mediaFiles(t, svc)) != 0 {
		t.Errorf("after eject: media %v, drive %q, files %v", m, f.cd, mediaFiles(t, svc))
	}
}

func TestInsertFailuresLeaveNothing(t *testing.T) {
	svc, _ := newTestService(t, 4)
	img := imageServer(t, "too large")
	empty := imageServer(t, "")
	for _, u := range []string{img + "/disc.iso", img + "/missing.iso", empty + "/disc.iso", "http://127.0.0.1:1/x.iso"} {
		err := svc.Insert(t.Context(), "vm1", u)
		if err == nil {
			t.Errorf("Insert(%s) succeeded", u)
		}
	}
	if m, _ := svc.Media("vm1"); m.Inserted || len(mediaFiles(t, svc)) != 0 {
		t.Errorf("media %v, files %v after failed inserts", m, mediaFiles(t, svc))
	}
}

func TestSessions(t *testing.T) {
	svc, _ := newTestService(t, 0)
	if code, _, _ := call(t, svc, "POST", sessionsPath, `{"UserName":"admin","Password":"wrong"}`, "Authorization", ""); code != 401 {
		t.Errorf("login with a wrong password = %d, want 401", code)
	}
	code, hdr, doc := call(t, svc, "POST", sessionsPath+"/", `{"UserName":"admin","Password":"`+testPass+`"}`, "Authorization", "")
	token, loc := hdr.Get("X-Auth-Token"), hdr.Get("Location")
	if code != 201 || len(token) != 64 || !strings.HasPrefix(loc, sessionsPath+"/") || doc["@odata.id"] != loc {
		t.Fatalf("login = %d %v %v", code, hdr, doc)
	}
	if code, _, _ := call(t, svc, "GET", "/redfish/v1/Systems/vm1", "", "Authorization", "", "X-Auth-Token", token); code != 200 {
		t.Errorf("GET with the session token = %d", code)
	}
	if code, _, _ := call(t, svc, "GET", "/redfish/v1/Systems/vm1", "", "Authorization", "", "X-Auth-Token", token[:63]+"x"); code != 401 {
		t.Errorf("GET with a wrong token = %d, want 401", code)
	}
	if code, _, _ := call(t, svc, "DELETE", loc, "", "Authorization", "", "X-Auth-Token", token); code != 204 {
		t.Errorf("logout = %d", code)
	}
	if code, _, _ := call(t, svc, "GET", "/redfish/v1/Systems/vm1", "", "Authorization", "", "X-Auth-Token", token); code != 401 {
		t.Errorf("GET after logout = %d, want 401", code)
	}
}
