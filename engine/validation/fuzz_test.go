package validation

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine/models"
)

// FuzzInventory feeds arbitrary inventory JSON (what an agent posts as the
// output of its inventory step) through every host validation, the status
// decision and disk eligibility, bound and unbound: nothing may panic and
// every result must carry a known status.
func FuzzInventory(f *testing.F) {
	seed, err := json.Marshal(testInventory("master-0", "192.168.122.10"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	if b, err := os.ReadFile(filepath.Join("..", "models", "testdata", "inventory.json")); err == nil {
		f.Add(b)
	}
	for _, s := range []string{`{}`, `null`, `{"cpu":null,"memory":null,"disks":[null],"interfaces":[null],"routes":[null]}`,
		`{"disks":[{"drive_type":"Multipath","name":"dm-0","holders":"dm-0"}],"interfaces":[{"ipv4_addresses":["300.1.1.1/99","::/0"]}]}`,
		`{"routes":[{"destination":"::","gateway":"fe80::1"}],"truncation":{"type":"weird"},"system_vendor":{"product_name":"OpenStack Compute"}}`,
		`{"memory":{"physical_bytes":-1,"physical_bytes_method":"meminfo"},"cpu":{"count":-5}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var inv *models.Inventory
		if json.Unmarshal(data, &inv) != nil {
			return
		}
		for _, bound := range []bool{true, false} {
			h := goodHost()
			h.Inventory = inv
			if inv != nil {
				h.Connectivity = fuzzConnectivity(inv)
			}
			if !bound {
				h.Cluster = nil
			} else {
				h.Cluster.UserManagedNetworking = len(data)%2 == 0
			}
			rs := ValidateHost(h, DefaultThresholds())
			checkResults(t, rs)
			if _, _, ok := HostStatus(h.Status, bound, rs); !ok {
				t.Fatal("known status not refreshed")
			}
			if _, err := rs.JSON(); err != nil {
				t.Fatal(err)
			}
		}
		EligibleDisks(inv, 120)
		c := goodCluster()
		c.Hosts[0].Inventory = inv
		checkResults(t, ValidateCluster(c, DefaultThresholds()))
		MajorityGroups([]ConnectivityHost{{ID: "a", Inventory: inv}, {ID: "b", Inventory: inv}}, []string{"192.168.122.0/24", "bad"})
	})
}

// fuzzConnectivity makes an MTU report towards the inventory's own
// addresses, so that the machine-network filtering runs on fuzzed data.
func fuzzConnectivity(inv *models.Inventory) *models.ConnectivityReport {
	r := &models.ConnectivityRemoteHost{HostID: "x"}
	for _, i := range inv.Interfaces {
		if i == nil {
			continue
		}
		for _, a := range append(append([]string{}, i.IPV4Addresses...), i.IPV6Addresses...) {
			r.MtuReport = append(r.MtuReport, &models.MtuReport{OutgoingNic: i.Name, RemoteIPAddress: a})
		}
	}
	return &models.ConnectivityReport{RemoteHosts: []*models.ConnectivityRemoteHost{r, nil}}
}

func checkResults(t *testing.T, rs Results) {
	t.Helper()
	for _, r := range rs {
		switch r.Status {
		case StatusSuccess, StatusFailure, StatusPending, StatusError, StatusDisabled:
		default:
			t.Fatalf("%s has status %q", r.ID, r.Status)
		}
		if r.Category == "" {
			t.Fatalf("%s has no category", r.ID)
		}
	}
}

// TestManyDisksZeroClock: a host with 200 disks, evaluated with a zero
// clock, still yields well-formed results and a known disk choice.
func TestManyDisksZeroClock(t *testing.T) {
	h := goodHost()
	for i := range 200 {
		h.Inventory.Disks = append(h.Inventory.Disks, &models.Disk{Name: "sd" + string(rune('a'+i%26)), DriveType: models.DriveTypeHDD, SizeBytes: int64(i) * gb})
	}
	h.Now = time.Time{}
	checkResults(t, ValidateHost(h, DefaultThresholds()))
	_, eligible := h.InstallationDisks(DefaultThresholds())
	if len(eligible) == 0 || eligible[0].Name != "sda" || eligible[0].SizeBytes != 200*gb {
		t.Errorf("first choice = %+v", eligible[0])
	}
}
