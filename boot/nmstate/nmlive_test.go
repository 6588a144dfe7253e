package nmstate

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/testbed/netns"
)

// liveCheck: the output of a command (ip in the namespace, or the
// resolv.conf NetworkManager wrote) contains every want and no reject.
type liveCheck struct {
	cmd          []string // "ip" arguments after -n NS, or "resolv.conf"
	want, reject []string
}

var liveCases = []struct {
	name, dir string
	macs      string // mac_interface.ini to build NICs from; "" for the case's own
	checks    []liveCheck
}{
	{name: "ethernet-static-ipv4", dir: "ethernet-static-ipv4", checks: []liveCheck{
		{cmd: []string{"addr", "show", "eth0"}, want: []string{"mtu 9000", "inet 192.168.111.30/24"}},
	}},
	{name: "wrong-mac-is-left-alone", dir: "ethernet-static-ipv4", macs: "02:00:00:99:99:99=eth0\n", checks: []liveCheck{
		{cmd: []string{"addr", "show", "eth0"}, want: []string{"mtu 1500"}, reject: []string{"192.168.111.30"}},
	}},
	{name: "dual-stack", dir: "dual-stack", checks: []liveCheck{
		{cmd: []string{"addr", "show", "eth0"}, want: []string{"inet 192.168.126.30/24", "inet6 2001:db8:126::30/64", "inet6 fd00:126::30/64"}},
		{cmd: []string{"-4", "route"}, want: []string{"default via 192.168.126.1 dev eth0"}},
		{cmd: []string{"-6", "route"}, want: []string{"default via 2001:db8:126::1 dev eth0"}},
		{cmd: []string{"resolv.conf"}, want: []string{"nameserver 192.168.126.1", "nameserver 2001:db8:126::1"}},
	}},
	{name: "dns-and-routes", dir: "dns-and-routes", checks: []liveCheck{
		{cmd: []string{"-4", "route"}, want: []string{"default via 198.51.100.1 dev eth1 proto static metric 50",
			"10.0.0.0/8 via 172.16.0.1 dev eth0 proto static metric 100", "192.0.2.7 dev eth0 proto static"}},
		{cmd: []string{"-4", "route", "show", "table", "100"}, want: []string{"10.20.0.0/16 via 172.16.0.2 dev eth0 proto static"}},
		{cmd: []string{"-6", "route"}, want: []string{"2001:db8:200::/48 via 2001:db8:100::1 dev eth1 proto static metric 10"}},
		{cmd: []string{"resolv.conf"}, want: []string{"search example.com lab.example.com", "nameserver 198.51.100.53",
			"nameserver 198.51.100.54", "nameserver 2001:db8:100::53"}},
	}},
	{name: "disabled-interface", dir: "disabled-interface", checks: []liveCheck{
		{cmd: []string{"addr", "show", "eth0"}, want: []string{"inet 192.0.2.10/24"}},
		{cmd: []string{"-4", "addr", "show", "eth1"}, reject: []string{"inet "}},
	}},
	{name: "linux-bridge", dir: "linux-bridge", checks: []liveCheck{
		{cmd: []string{"link", "show", "eth0"}, want: []string{"master br0"}},
		{cmd: []string{"addr", "show", "br0"}, want: []string{"link/ether 02:00:00:00:00:30", "inet 203.0.113.5/24"}},
	}},
}

// TestNetworkManagerApplies boots real NetworkManager on veth NICs named
// and addressed as each case's mac_interface.ini says and checks what the
// kernel ends up with. (The test kernel has no bonding or 8021q, so bond
// and VLAN profiles are only checked for loading, above.)
func TestNetworkManagerApplies(t *testing.T) {
	nmAvailable(t)
	for _, tc := range liveCases {
		t.Run(tc.name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tc.dir, "input.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			files, err := ConvertNMStateConfig(data)
			if err != nil {
				t.Fatal(err)
			}
			macs := []byte(tc.macs)
			if tc.macs == "" {
				macs = fileData(files, MACInterfaceFile)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			ns, err := netns.New(ctx, "nmlive")
			if err != nil {
				t.Fatal(err)
			}
			defer ns.Close()
			peer, err := netns.New(ctx, "nmpeer")
			if err != nil {
				t.Fatal(err)
			}
			defer peer.Close()
			addNICs(t, ctx, ns, peer, macs)
			r := startNM(t, ctx, ns, files)
			if err := r.log.waitLine(ctx, "manager: startup complete"); err != nil {
				t.Fatal(err)
			}
			r.waitFor("the kernel state", func() (bool, string) { return r.checkAll(tc.checks) })
		})
	}
}

func (r *nmRun) checkAll(checks []liveCheck) (bool, string) {
	for _, c := range checks {
		var out []byte
		var err error
		if c.cmd[0] == "resolv.conf" {
			out, err = os.ReadFile(filepath.Join(r.tmp, "run", "resolv.conf"))
		} else {
			out, err = exec.CommandContext(r.ctx, "ip", append([]string{"-n", r.ns.Name}, c.cmd...)...).CombinedOutput()
		}
		text := string(out)
		if err != nil {
			return false, err.Error() + ": " + text
		}
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				return false, strings.Join(c.cmd, " ") + ": no " + w + " in\n" + text
			}
		}
		for _, w := range c.reject {
			if strings.Contains(text, w) {
				return false, strings.Join(c.cmd, " ") + ": unexpected " + w + " in\n" + text
			}
		}
	}
	return true, ""
}

// TestNetworkManagerAppliesSelectedHost is the whole upstream flow: a
// static_network_config list for two hosts, a machine whose NICs have other
// names than the logical ones, SelectHost, and NetworkManager configuring
// the machine's real NICs.
func TestNetworkManagerAppliesSelectedHost(t *testing.T) {
	nmAvailable(t)
	machine := map[string]string{"02:00:00:2c:23:a5": "ens3", "02:00:00:68:73:dc": "ens4"}
	dir, files, err := SelectHost(hostsFiles(t), machine)
	if err != nil || dir != "host0" {
		t.Fatalf("SelectHost = %q, %v", dir, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ns, err := netns.New(ctx, "nmsel")
	if err != nil {
		t.Fatal(err)
	}
	defer ns.Close()
	peer, err := netns.New(ctx, "nmselp")
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	addNICs(t, ctx, ns, peer, []byte("02:00:00:2c:23:a5=ens3\n02:00:00:68:73:dc=ens4\n"))
	r := startNM(t, ctx, ns, files)
	if err := r.log.waitLine(ctx, "manager: startup complete"); err != nil {
		t.Fatal(err)
	}
	r.waitFor("the kernel state", func() (bool, string) {
		return r.checkAll([]liveCheck{
			{cmd: []string{"addr", "show", "ens3"}, want: []string{"inet 192.168.126.30/24"}},
			{cmd: []string{"addr", "show", "ens4"}, want: []string{"inet 192.168.141.30/24"}},
			{cmd: []string{"-4", "route"}, want: []string{"default via 192.168.126.1 dev ens3"}},
			{cmd: []string{"resolv.conf"}, want: []string{"nameserver 192.168.126.1"}},
		})
	})
}
