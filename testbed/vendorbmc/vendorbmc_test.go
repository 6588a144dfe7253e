package vendorbmc_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/rackboot/rackboot/testbed/vendorbmc"
)

type client struct {
	t   *testing.T
	url string
}

func newClient(t *testing.T, vendor string) (*client, *vendorbmc.BMC) {
	t.Helper()
	m, err := vendorbmc.New(vendor)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m)
	t.Cleanup(srv.Close)
	return &client{t: t, url: srv.URL}, m
}

// do sends one request and returns the status and the decoded answer.
func (c *client) do(method, path string, body any) (int, map[string]any) {
	c.t.Helper()
	var rd *bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, _ := http.NewRequest(method, c.url+path, rd)
	req.SetBasicAuth(vendorbmc.User, vendorbmc.Password)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&doc)
	return resp.StatusCode, doc
}

func TestVendors(t *testing.T) {
	want := []string{"ami-megarac", "dell-idrac9", "dell-idrac9-fw4", "dmtf-public-rackmount1", "hpe-ilo5", "lenovo-xcc", "supermicro-x12"}
	if got := vendorbmc.Vendors(); !slices.Equal(got, want) {
		t.Errorf("Vendors = %q, want %q", got, want)
	}
	if _, err := vendorbmc.New("no-such-bmc"); err == nil {
		t.Error("New of an unknown vendor succeeded")
	}
}

// iDRAC: the slot shows an accepted image two reads later and refuses a
// PATCH; the OEM boot-once boots the virtual CD.
func TestIDRAC(t *testing.T) {
	c, m := newClient(t, "dell-idrac9")
	slot := "/redfish/v1/Systems/System.Embedded.1/VirtualMedia/1"
	if code, _ := c.do("POST", slot+"/Actions/VirtualMedia.InsertMedia", map[string]any{"Image": "http://x/a.iso"}); code != 204 {
		t.Fatalf("InsertMedia = %d", code)
	}
	if _, doc := c.do("GET", slot, nil); doc["Image"] != "" {
		t.Errorf("first read shows %v, want the slot not updated yet", doc["Image"])
	}
	if _, doc := c.do("GET", slot, nil); doc["Image"] != "http://x/a.iso" || doc["Inserted"] != true {
		t.Errorf("second read = %v", doc)
	}
	if code, _ := c.do("PATCH", slot, map[string]any{"Inserted": true}); code != 400 {
		t.Errorf("PATCH of the slot = %d, want 400", code)
	}
	code, _ := c.do("POST", "/redfish/v1/Managers/iDRAC.Embedded.1/Actions/Oem/EID_674_Manager.ImportSystemConfiguration",
		map[string]any{"ImportBuffer": `<SystemConfiguration><Component FQDD="iDRAC.Embedded.1"><Attribute Name="ServerBoot.1#BootOnce">Enabled</Attribute><Attribute Name="ServerBoot.1#FirstBootDevice">VCD-DVD</Attribute></Component></SystemConfiguration>`})
	if code != 202 {
		t.Fatalf("ImportSystemConfiguration = %d", code)
	}
	c.do("POST", "/redfish/v1/Systems/System.Embedded.1/Actions/ComputerSystem.Reset", map[string]any{"ResetType": "On"})
	c.do("POST", "/redfish/v1/Systems/System.Embedded.1/Actions/ComputerSystem.Reset", map[string]any{"ResetType": "ForceRestart"})
	if got := m.Boots(); !slices.Equal(got, []string{"cd http://x/a.iso", "disk"}) {
		t.Errorf("boots = %q, want the CD once, then the disk", got)
	}
}

// iLO 5: trailing slashes, no GracefulShutdown, and the virtual media is
// booted only with its BootOnNextServerReset flag.
func TestILO(t *testing.T) {
	c, m := newClient(t, "hpe-ilo5")
	if _, doc := c.do("GET", "/redfish/v1/Systems/1/", nil); doc["@odata.id"] != "/redfish/v1/Systems/1/" {
		t.Errorf("@odata.id = %v, want a trailing slash", doc["@odata.id"])
	}
	if code, _ := c.do("POST", "/redfish/v1/Systems/1/Actions/ComputerSystem.Reset/", map[string]any{"ResetType": "GracefulShutdown"}); code != 400 {
		t.Errorf("GracefulShutdown = %d, want 400", code)
	}
	slot := "/redfish/v1/Managers/1/VirtualMedia/2/"
	c.do("POST", slot+"Actions/VirtualMedia.InsertMedia/", map[string]any{"Image": "http://x/a.iso"})
	c.do("PATCH", "/redfish/v1/Systems/1/", map[string]any{"Boot": map[string]any{"BootSourceOverrideEnabled": "Once", "BootSourceOverrideTarget": "Cd"}})
	c.do("POST", "/redfish/v1/Systems/1/Actions/ComputerSystem.Reset/", map[string]any{"ResetType": "On"})
	c.do("POST", slot+"Actions/VirtualMedia.EjectMedia/", map[string]any{})
	c.do("POST", slot+"Actions/VirtualMedia.InsertMedia/", map[string]any{"Image": "http://x/a.iso",
		"Oem": map[string]any{"Hpe": map[string]any{"BootOnNextServerReset": true}}})
	c.do("POST", "/redfish/v1/Systems/1/Actions/ComputerSystem.Reset/", map[string]any{"ResetType": "ForceRestart"})
	if got := m.Boots(); !slices.Equal(got, []string{"disk", "cd http://x/a.iso"}) {
		t.Errorf("boots = %q, want the disk without the flag, the CD with it", got)
	}
}

// Supermicro: no slots listed, CD1 there; only the Uefi targets boot.
func TestSupermicro(t *testing.T) {
	c, m := newClient(t, "supermicro-x12")
	if _, doc := c.do("GET", "/redfish/v1/Managers/1/VirtualMedia", nil); len(doc["Members"].([]any)) != 0 {
		t.Errorf("collection members = %v, want none", doc["Members"])
	}
	if code, _ := c.do("GET", "/redfish/v1/Managers/1/VirtualMedia/CD1", nil); code != 200 {
		t.Errorf("GET CD1 = %d", code)
	}
	c.do("POST", "/redfish/v1/Managers/1/VirtualMedia/CD1/Actions/VirtualMedia.InsertMedia", map[string]any{"Image": "http://x/a.iso"})
	c.do("PATCH", "/redfish/v1/Managers/1/VirtualMedia/CD1", map[string]any{"Inserted": true})
	for _, target := range []string{"Cd", "UefiCd", "Pxe", "UefiPxe"} {
		c.do("PATCH", "/redfish/v1/Systems/1", map[string]any{"Boot": map[string]any{"BootSourceOverrideEnabled": "Once", "BootSourceOverrideTarget": target}})
		c.do("POST", "/redfish/v1/Systems/1/Actions/ComputerSystem.Reset", map[string]any{"ResetType": "ForceRestart"})
	}
	if got := m.Boots(); !slices.Equal(got, []string{"disk", "cd http://x/a.iso", "disk", "pxe"}) {
		t.Errorf("boots = %q", got)
	}
}

// Lenovo XCC: a PATCHed slot shows the image two reads later.
func TestLenovo(t *testing.T) {
	c, _ := newClient(t, "lenovo-xcc")
	slot := "/redfish/v1/Managers/1/VirtualMedia/EXT1"
	if code, _ := c.do("PATCH", slot, map[string]any{"Image": "http://x/a.iso", "Inserted": true}); code != 204 {
		t.Fatalf("PATCH = %d", code)
	}
	_, first := c.do("GET", slot, nil)
	_, second := c.do("GET", slot, nil)
	if first["Image"] != "" || second["Image"] != "http://x/a.iso" {
		t.Errorf("reads = %v, %v; want empty, then the image", first["Image"], second["Image"])
	}
}
