package validation

import (
	"slices"
	"strconv"
	"testing"

	"github.com/rackboot/rackboot/engine/models"
)

// meshHost builds host id at ip whose report says it reached the listed
// peers (by their ip) over ARP and ping.
func meshHost(id, ip string, peers map[string]string) ConnectivityHost {
	rep := &models.ConnectivityReport{}
	for peerID, peerIP := range peers {
		rep.RemoteHosts = append(rep.RemoteHosts, &models.ConnectivityRemoteHost{
			HostID:         peerID,
			L2Connectivity: []*models.L2Connectivity{{OutgoingNic: "eth0", RemoteIPAddress: peerIP, Successful: true}},
			L3Connectivity: []*models.L3Connectivity{{OutgoingNic: "eth0", RemoteIPAddress: peerIP, Successful: true}},
		})
	}
	return ConnectivityHost{ID: id, Inventory: testInventory(id, ip), Connectivity: rep}
}

func TestMajorityGroups(t *testing.T) {
	ips := map[string]string{"a": "192.168.122.10", "b": "192.168.122.11", "c": "192.168.122.12", "d": "192.168.122.13"}
	others := func(self string, except ...string) map[string]string {
		m := map[string]string{}
		for id, ip := range ips {
			if id != self && !slices.Contains(except, id) {
				m[id] = ip
			}
		}
		return m
	}
	// d hears everyone, but only a reaches d back: d is not in the mesh
	hosts := []ConnectivityHost{
		meshHost("a", ips["a"], others("a")),
		meshHost("b", ips["b"], others("b", "d")),
		meshHost("c", ips["c"], others("c", "d")),
		meshHost("d", ips["d"], others("d")),
	}
	groups := MajorityGroups(hosts, []string{"192.168.122.0/24", "10.0.0.0/24"})
	if got := groups["192.168.122.0/24"]; !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("L2 group = %v, want [a b c]", got)
	}
	if got := groups["10.0.0.0/24"]; len(got) != 1 {
		t.Errorf("group of a network nobody reached = %v, want one lone host", got)
	}
	if got := groups["IPv4"]; !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("L3 group = %v", got)
	}

	// the groups feed belongs-to-majority-group
	h := goodHost()
	h.ID, h.Cluster.HostCount, h.Cluster.MajorityGroups = "d", 4, groups
	r, _ := ValidateHost(h, DefaultThresholds()).Get(HostBelongsToMajorityGroup)
	if r.Status != StatusFailure {
		t.Errorf("d: %+v", r)
	}
	h.ID = "b"
	if r, _ = ValidateHost(h, DefaultThresholds()).Get(HostBelongsToMajorityGroup); r.Status != StatusSuccess {
		t.Errorf("b: %+v", r)
	}
}

func TestMajorityGroupsLargeClusterGreedy(t *testing.T) {
	var hosts []ConnectivityHost
	ips := map[string]string{}
	for i := range 50 {
		id := string(rune('A' + i))
		ips[id] = "10.1.0." + strconv.Itoa(i+1)
	}
	for id, ip := range ips {
		peers := map[string]string{}
		for p, pip := range ips {
			if p != id {
				peers[p] = pip
			}
		}
		hosts = append(hosts, meshHost(id, ip, peers))
	}
	if got := MajorityGroups(hosts, []string{"10.1.0.0/24"})["10.1.0.0/24"]; len(got) != 50 {
		t.Errorf("full mesh of 50 = %d hosts", len(got))
	}
}

func TestIPCollisions(t *testing.T) {
	a := meshHost("a", "192.168.122.10", nil)
	b := meshHost("b", "192.168.122.10", nil)
	b.Inventory.Interfaces[0].MacAddress = "52:54:00:00:00:02"
	c := meshHost("c", "192.168.122.12", nil)
	col := IPCollisions([]ConnectivityHost{a, b, c})
	if len(col) != 1 || !slices.Equal(col["192.168.122.10"], []string{"52:54:00:00:00:01", "52:54:00:00:00:02"}) {
		t.Fatalf("collisions = %v", col)
	}
	h := goodHost()
	h.Cluster.IPCollisions = col
	r, _ := ValidateHost(h, DefaultThresholds()).Get(HostNoIPCollisions)
	want := "Collisions detected for host ID 11111111-1111-1111-1111-111111111111, IP address: 192.168.122.10 Mac addresses: 52:54:00:00:00:01,52:54:00:00:00:02\n"
	if r.Status != StatusFailure || r.Message != want {
		t.Errorf("collision result = %+v", r)
	}
	if st, _, _ := HostStatus(models.HostStatusKnown, true, ValidateHost(h, DefaultThresholds())); st != models.HostStatusInsufficient {
		t.Errorf("colliding host is %s", st)
	}
	h.Cluster.IPCollisions = map[string][]string{}
	if r, _ = ValidateHost(h, DefaultThresholds()).Get(HostNoIPCollisions); r.Status != StatusSuccess ||
		r.Message != "No IP collisions were detected by host 11111111-1111-1111-1111-111111111111" {
		t.Errorf("no collision result = %+v", r)
	}
}
