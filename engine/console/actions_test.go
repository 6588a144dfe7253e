package console_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
)

// The host page's forms set the role, the hostname and the installation
// disk through the API; the page shows the result.
func TestHostActions(t *testing.T) {
	b := newBed(t)
	_, ie := b.sno()
	b.newAgent(ie, hostID(1), "sno-1").poll()
	br := b.browser()
	br.signIn(testAdmin)
	path := "/console/hosts/" + ie + "/" + hostID(1)
	csrf := br.csrf(path)
	post := func(form url.Values) {
		t.Helper()
		form.Set("csrf", csrf)
		if res, body := br.do("POST", path, form); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("%v: %d\n%s", form, res.StatusCode, body)
		}
	}
	post(url.Values{"op": {"role"}, "role": {"master"}})
	post(url.Values{"op": {"hostname"}, "hostname": {"edge-master-0"}})
	var h models.APIHost
	b.admin("GET", "/infra-envs/"+ie+"/hosts/"+hostID(1), nil, &h)
	var inv models.Inventory
	if err := json.Unmarshal([]byte(h.Inventory), &inv); err != nil {
		t.Fatal(err)
	}
	var vdb string
	for _, d := range inv.Disks {
		if d.Name == "vdb" {
			vdb = d.ID
		}
	}
	_, page := br.do("GET", path, nil)
	if !strings.Contains(page, `<dd id="hostname">edge-master-0</dd>`) || !strings.Contains(page, "<dt>Role</dt><dd>master</dd>") {
		t.Errorf("host page after role and hostname:\n%s", page)
	}
	b.admin("GET", "/infra-envs/"+ie+"/hosts/"+hostID(1), nil, &h)
	if h.Role != "master" || h.RequestedHostname != "edge-master-0" {
		t.Errorf("host role %q hostname %q", h.Role, h.RequestedHostname)
	}
	// The page marks the installation disk; an ineligible disk (vdb has a
	// mounted partition) is refused by the API, with its reason on the page.
	if !strings.Contains(page, `value="`+h.InstallationDiskID+`" id="disk-vda" checked`) || !strings.Contains(page, "(installation disk)") {
		t.Errorf("the installation disk %s is not marked:\n%s", h.InstallationDiskID, page)
	}
	res, body := br.do("POST", path, url.Values{"op": {"disk"}, "disk": {vdb}, "csrf": {csrf}})
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, `role="alert"`) {
		t.Errorf("ineligible disk %q: %d", vdb, res.StatusCode)
	}
	b.admin("GET", "/infra-envs/"+ie+"/hosts/"+hostID(1), nil, &h)
	if h.InstallationDiskID == vdb {
		t.Error("the refused disk became the installation disk")
	}
	if res, body := br.do("GET", "/console/hosts/"+ie+"/"+hostID(77), nil); res.StatusCode != http.StatusNotFound || !strings.Contains(body, `role="alert"`) {
		t.Errorf("an unknown host: %d", res.StatusCode)
	}
}

// The infra-envs page shows the discovery image and iPXE script URLs with
// copy buttons, and the infra-env's hosts.
func TestInfraEnvPage(t *testing.T) {
	b := newBed(t)
	_, ie := b.sno()
	b.newAgent(ie, hostID(1), "sno-1").poll()
	br := b.browser()
	br.signIn(testAdmin)
	var u models.PresignedURL
	b.admin("GET", "/infra-envs/"+ie+"/downloads/image-url", nil, &u)
	res, page := br.do("GET", "/console/infra-envs", nil)
	// The test image set has no base ISO: the API hands out the iPXE script's URL.
	base, _, _ := strings.Cut(u.URL, "?")
	if res.StatusCode != 200 || !strings.Contains(u.URL, "file_name=ipxe-script") ||
		!strings.Contains(page, `<input id="ipxe-0" readonly value="`+base+"?file_name=ipxe-script&amp;image_token=") ||
		!strings.Contains(page, `data-copy="ipxe-0"`) || !strings.Contains(page, "#!ipxe") ||
		!strings.Contains(page, `data-copy="script-0"`) || !strings.Contains(page, ">sno-1</a>") {
		t.Errorf("infra-envs page (image URL %s):\n%s", u.URL, page)
	}
}

// Power on and off set the BareMetalHost's online through the API.
func TestBMHPower(t *testing.T) {
	b := newBed(t)
	b.admin("POST", "/baremetal-hosts", map[string]any{"metadata": map[string]any{"name": "node-7"},
		"spec": map[string]any{"online": false, "bootMACAddress": "52:54:00:00:00:07",
			"bmc": map[string]any{"address": "redfish://10.55.0.200/redfish/v1/Systems/1"}},
		"credentials": map[string]string{"username": "admin", "password": "bmc-Secret-7"}}, nil)
	br := b.browser()
	br.signIn(testAdmin)
	_, page := br.do("GET", "/console/baremetal-hosts", nil)
	if !strings.Contains(page, "node-7") || !strings.Contains(page, ">Power on</button>") || strings.Contains(page, "bmc-Secret-7") {
		t.Fatalf("BareMetalHosts page:\n%s", page)
	}
	csrf := br.csrf("/console/baremetal-hosts")
	if res, _ := br.do("POST", "/console/baremetal-hosts/node-7/power", url.Values{"online": {"true"}, "csrf": {csrf}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("power on: %d", res.StatusCode)
	}
	var bmh models.BareMetalHost
	b.admin("GET", "/baremetal-hosts/node-7", nil, &bmh)
	if !bmh.Spec.Online {
		t.Error("power on did not set spec.online")
	}
	if _, page := br.do("GET", "/console/baremetal-hosts", nil); !strings.Contains(page, ">Power off</button>") {
		t.Errorf("after power on:\n%s", page)
	}
}

// Install on a cluster that is not ready is refused by the API, whose
// reason the page shows; nothing changes.
func TestInstallRefusedShowsReason(t *testing.T) {
	b := newBed(t)
	cluster, ie := b.sno()
	b.newAgent(ie, hostID(1), "sno-1").poll()
	br := b.browser()
	br.signIn(testAdmin)
	csrf := br.csrf("/console/clusters/" + cluster)
	res, body := br.do("POST", "/console/clusters/"+cluster+"/install", url.Values{"csrf": {csrf}})
	if res.StatusCode != http.StatusConflict || !strings.Contains(body, `role="alert"`) {
		t.Fatalf("install of a cluster that is not ready: %d\n%s", res.StatusCode, body)
	}
	var c models.Cluster
	b.admin("GET", "/clusters/"+cluster, nil, &c)
	if c.Status == "preparing-for-installation" || c.Status == "installing" {
		t.Errorf("a refused install moved the cluster to %s", c.Status)
	}
	if res, _ := br.do("POST", "/console/clusters/"+cluster+"/destroy", url.Values{"csrf": {csrf}}); res.StatusCode != http.StatusNotFound {
		t.Errorf("an unknown cluster action: %d", res.StatusCode)
	}
}

// Install, Cancel and Reset from the cluster page: each button is offered
// when the API would take it, and moves the cluster.
func TestInstallCancelReset(t *testing.T) {
	b := newBed(t)
	cluster, ie := b.sno()
	a := b.newAgent(ie, hostID(1), "sno-1")
	for range 2 {
		a.poll()
	}
	b.admin("PATCH", "/infra-envs/"+ie+"/hosts/"+hostID(1), map[string]any{"approved": true}, nil)
	br := b.browser()
	br.signIn(testAdmin)
	path := "/console/clusters/" + cluster
	res, page := br.do("GET", path, nil)
	if res.StatusCode != 200 || !strings.Contains(page, `id="install" class="primary">Install</button>`) || strings.Contains(page, `id="cancel"`) {
		t.Fatalf("a ready cluster's page:\n%s", page)
	}
	csrf := br.csrf(path)
	for _, step := range []struct{ action, status string }{
		{"install", ""}, {"cancel", engine.ClusterStatusCancelled}, {"reset", engine.ClusterStatusInsufficient},
	} {
		if step.action == "cancel" {
			b.waitFor("the install under way", func(m *engine.Model) bool {
				c, _ := m.Cluster(cluster)
				return c.Status == engine.ClusterStatusInstalling
			})
			if _, page := br.do("GET", path, nil); !strings.Contains(page, `id="cancel"`) || !strings.Contains(page, `id="reset"`) ||
				!strings.Contains(page, `disabled aria-describedby="why-not"`) {
				t.Errorf("an installing cluster's page:\n%s", page)
			}
		}
		if res, body := br.do("POST", path+"/"+step.action, url.Values{"csrf": {csrf}}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("%s: %d\n%s", step.action, res.StatusCode, body)
		}
		if step.status == "" {
			continue
		}
		var c models.Cluster
		b.admin("GET", "/clusters/"+cluster, nil, &c)
		// A reset cluster is re-evaluated at once: insufficient, or already
		// whatever its hosts make it — anything but cancelled.
		if c.Status != step.status && (step.action != "reset" || c.Status == engine.ClusterStatusCancelled) {
			t.Errorf("after %s the cluster is %s, want %s", step.action, c.Status, step.status)
		}
	}
}
