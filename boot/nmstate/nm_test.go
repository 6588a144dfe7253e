package nmstate

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/testbed/netns"
)

// nmProps are connection properties NetworkManager itself reports (nmcli
// -g) after loading each golden case's keyfiles.
var nmProps = map[string][][3]string{
	"bond-active-backup-with-vlan": {
		{"bond0", "bond.options", "mode=active-backup,all_slaves_active=1,miimon=100,primary=eth0"},
		{"eth1", "connection.master", "bond0"},
		{"bond0.122", "vlan.parent", "bond0"},
		{"bond0.122", "vlan.id", "122"},
		{"bond0.122", "ipv4.gateway", "10.122.0.1"},
		{"bond0.122", "ipv4.dns", "10.122.0.1"},
		{"bond0.122", "ipv4.dns-search", "lab.local"},
	},
	"dns-and-routes": {
		{"eth0", "ipv4.routes", "10.0.0.0/8 172.16.0.1 100 table=254, 10.20.0.0/16 172.16.0.2 table=100, 192.0.2.7/32"},
		{"eth1", "ipv4.routes", "0.0.0.0/0 198.51.100.1 50"},
		{"eth1", "ipv6.routes", `2001\:db8\:200\:\:/48 2001\:db8\:100\:\:1 10`},
		{"eth1", "ipv4.dns", "198.51.100.53,198.51.100.54"},
		{"eth1", "ipv4.ignore-auto-routes", "yes"},
	},
	"ethernet-dhcp": {
		{"eno1", "ipv4.method", "auto"},
		{"eno1", "ipv4.ignore-auto-dns", "yes"},
		{"eno1", "802-3-ethernet.mac-address", `52\:54\:00\:AA\:00\:01`},
	},
}

func TestNetworkManagerLoadsKeyfiles(t *testing.T) {
	nmAvailable(t)
	dirs, _ := filepath.Glob(filepath.Join("testdata", "*", "input.yaml"))
	for _, in := range dirs {
		name := filepath.Base(filepath.Dir(in))
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			files, err := ConvertNMStateConfig(data)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			ns, err := netns.New(ctx, "nmload")
			if err != nil {
				t.Fatal(err)
			}
			defer ns.Close()
			r := startNM(t, ctx, ns, files)
			if err := r.log.waitLine(ctx, "manager: startup complete"); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(r.log.String(), "keyfile: load") {
				t.Errorf("NetworkManager complained about a keyfile")
			}
			out, err := r.nmcli("-t", "-f", "NAME,UUID", "connection", "show")
			if err != nil {
				t.Fatalf("nmcli: %v: %s", err, out)
			}
			var want []string
			for _, f := range files {
				if id, ok := strings.CutSuffix(f.Name, ".nmconnection"); ok {
					want = append(want, id+":"+connectionUUID(id))
				}
			}
			got := strings.Fields(out)
			got = removeLoopback(got)
			sort.Strings(got)
			sort.Strings(want)
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("NetworkManager loaded\n%v\nwant\n%v", got, want)
			}
			for _, p := range nmProps[name] {
				v, err := r.nmcli("-g", p[1], "connection", "show", p[0])
				if v = strings.TrimSpace(v); err != nil || v != p[2] {
					t.Errorf("%s %s = %q (%v), want %q", p[0], p[1], v, err, p[2])
				}
			}
		})
	}
}

func removeLoopback(list []string) []string {
	var out []string
	for _, s := range list {
		if !strings.HasPrefix(s, "lo:") {
			out = append(out, s)
		}
	}
	return out
}
