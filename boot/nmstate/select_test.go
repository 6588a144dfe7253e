package nmstate

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func hostsFiles(t *testing.T) []File {
	t.Helper()
	input, err := os.ReadFile(filepath.Join("testdata", "hosts", "input.json"))
	if err != nil {
		t.Fatal(err)
	}
	var hosts []HostStaticNetworkConfig
	if err := json.Unmarshal(input, &hosts); err != nil {
		t.Fatal(err)
	}
	files, err := ConvertHosts(hosts)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestSelectHostRenames(t *testing.T) {
	files := hostsFiles(t)
	dir, got, err := SelectHost(files, map[string]string{"02-00-00-68-73-DC": "ens4", "02:00:00:2c:23:a5": "ens3", "aa:bb:cc:dd:ee:ff": "lo9"})
	if err != nil || dir != "host0" {
		t.Fatalf("SelectHost = %q, %v", dir, err)
	}
	if len(got) != 2 || got[0].Name != "ens3.nmconnection" || got[1].Name != "ens4.nmconnection" {
		t.Fatalf("files %v", names(got))
	}
	want, err := os.ReadFile(filepath.Join("testdata", "hosts", "host0", "eth0.nmconnection"))
	if err != nil {
		t.Fatal(err)
	}
	w := strings.Replace(strings.Replace(string(want), "id=eth0\n", "id=ens3\n", 1), "interface-name=eth0\n", "interface-name=ens3\n", 1)
	if string(got[0].Data) != w {
		t.Errorf("ens3.nmconnection:\n%s\nwant\n%s", got[0].Data, w)
	}
}

func TestSelectHostPicksByMAC(t *testing.T) {
	files := hostsFiles(t)
	dir, got, err := SelectHost(files, map[string]string{"02:00:00:80:12:14": "enp1s0"})
	if err != nil || dir != "host1" || len(got) != 1 || got[0].Name != "enp1s0.nmconnection" {
		t.Fatalf("SelectHost = %q, %v, %v", dir, names(got), err)
	}
	if _, _, err := SelectHost(files, map[string]string{"02:00:00:00:00:99": "eth0"}); !errors.Is(err, ErrNoHost) {
		t.Errorf("stranger: %v, want ErrNoHost", err)
	}
	if _, _, err := SelectHost(files, map[string]string{"nope": "eth0"}); err == nil {
		t.Error("a malformed machine MAC was accepted")
	}
}

// Swapping eth0 and eth1 renames ports, the bond's primary and VLANs built
// on a renamed NIC, all at once.
func TestSelectHostSwapsNames(t *testing.T) {
	doc := `interfaces:
- {name: eth0, type: ethernet}
- {name: eth1, type: ethernet}
- name: bond0
  type: bond
  link-aggregation: {mode: active-backup, options: {primary: eth0}, port: [eth0]}
- name: eth1.7
  type: vlan
  vlan: {base-iface: eth1, id: 7}
  ipv4: {dhcp: true}
`
	files, err := ConvertHosts([]HostStaticNetworkConfig{{NetworkYAML: doc, MACInterfaceMap: []MACInterface{
		{MACAddress: "02:00:00:00:00:01", LogicalNICName: "eth0"}, {MACAddress: "02:00:00:00:00:02", LogicalNICName: "eth1"}}}})
	if err != nil {
		t.Fatal(err)
	}
	_, got, err := SelectHost(files, map[string]string{"02:00:00:00:00:01": "eth1", "02:00:00:00:00:02": "eth0"})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Join(names(got), " "); n != "bond0.nmconnection eth0.7.nmconnection eth0.nmconnection eth1.nmconnection" {
		t.Fatalf("files %s", n)
	}
	byName := map[string]string{}
	for _, f := range got {
		byName[f.Name] = string(f.Data)
	}
	for file, want := range map[string][]string{
		"eth1.nmconnection":   {"id=eth1\n", "interface-name=eth1\n", "mac-address=02:00:00:00:00:01\n", "master=bond0\n"},
		"eth0.nmconnection":   {"id=eth0\n", "mac-address=02:00:00:00:00:02\n"},
		"bond0.nmconnection":  {"primary=eth1\n"},
		"eth0.7.nmconnection": {"id=eth0.7\n", "interface-name=eth0.7\n", "parent=eth0\n", "id=7\n"},
	} {
		for _, w := range want {
			if !strings.Contains(byName[file], w) {
				t.Errorf("%s lacks %q:\n%s", file, w, byName[file])
			}
		}
	}
}

func names(files []File) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.Name)
	}
	return out
}
