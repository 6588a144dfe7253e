package api

import (
	"strings"
	"testing"
)

// Cluster names are DNS labels, as upstream's: shell characters, upper
// case, a leading hyphen or more than 54 characters are refused, on
// create and on update, with nothing stored.
func TestClusterNameIsADNSLabel(t *testing.T) {
	e := newMemEnv(t)
	c := e.createCluster()
	for _, name := range []string{"a;reboot", "$(reboot)", "rack 1", "Rack1", "-rack", "rack-", "rack.one", "ràck", "a\nb",
		strings.Repeat("a", 55), ""} {
		r := e.do(adminCred(), "POST", "/clusters", map[string]any{
			"name": name, "openshift_version": "4.17", "pull_secret": testPullSecret, "base_dns_domain": "example.com"})
		e.wantError(r, 400, "cluster name")
		e.wantError(e.do(adminCred(), "PATCH", "/clusters/"+c.ID, map[string]any{"name": name}), 400, "cluster name")
	}
	for _, name := range []string{"r", "rack1", "sno-1", strings.Repeat("a", 54)} {
		e.must(adminCred(), 201, "PATCH", "/clusters/"+c.ID, map[string]any{"name": name})
	}
	var list []map[string]any
	e.must(adminCred(), 200, "GET", "/clusters", nil).decode(t, &list)
	if len(list) != 1 {
		t.Errorf("%d clusters, want the one created", len(list))
	}
}

// A cluster, service or machine network with host bits set is refused,
// with the network it probably meant.
func TestClusterNetworksWithHostBitsAreRefused(t *testing.T) {
	e := newMemEnv(t)
	c := e.createCluster()
	for _, tc := range []struct {
		body map[string]any
		want string
	}{
		{map[string]any{"cluster_networks": []map[string]any{{"cidr": "10.128.0.1/14", "host_prefix": 23}}},
			"cluster_networks: 10.128.0.1/14 has host bits set; did you mean 10.128.0.0/14"},
		{map[string]any{"service_networks": []map[string]any{{"cidr": "172.30.0.1/16"}}},
			"service_networks: 172.30.0.1/16 has host bits set; did you mean 172.30.0.0/16"},
		{map[string]any{"machine_networks": []map[string]any{{"cidr": "192.168.7.9/24"}}},
			"machine_networks: 192.168.7.9/24 has host bits set; did you mean 192.168.7.0/24"},
		{map[string]any{"machine_networks": []map[string]any{{"cidr": "fd00::1/64"}}},
			"machine_networks: fd00::1/64 has host bits set; did you mean fd00::/64"},
	} {
		e.wantError(e.do(adminCred(), "PATCH", "/clusters/"+c.ID, tc.body), 400, tc.want)
		body := map[string]any{"name": "rack2", "openshift_version": "4.17", "pull_secret": testPullSecret, "base_dns_domain": "example.com"}
		for k, v := range tc.body {
			body[k] = v
		}
		e.wantError(e.do(adminCred(), "POST", "/clusters", body), 400, tc.want)
	}
	e.must(adminCred(), 201, "PATCH", "/clusters/"+c.ID, map[string]any{
		"cluster_networks": []map[string]any{{"cidr": "10.128.0.0/14", "host_prefix": 23}},
		"service_networks": []map[string]any{{"cidr": "172.30.0.0/16"}},
		"machine_networks": []map[string]any{{"cidr": "192.168.7.0/24"}}})
}
