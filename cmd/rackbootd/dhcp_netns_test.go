package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/testbed/netns"
)

// dhcpConfig is a full-mode configuration on br0 with a reservation for
// 52:54:00:00:00:01 and, with extra, more reservations.
func dhcpConfigText(extra string) string {
	return `[server]
advertise = "10.99.0.1"
http_listen = "10.99.0.1:8080"
data_dir = "state"

[dhcp]
mode = "full"
interfaces = ["br0"]
subnet = "10.99.0.0/24"
range = ["10.99.0.100", "10.99.0.110"]
router = "10.99.0.1"
lease_time = "1h"

[[dhcp.reservation]]
mac = "52:54:00:00:00:01"
ip = "10.99.0.11"
hostname = "node-1"
` + extra + `
[tftp]
enabled = false

[[profile]]
name = "discovery"
kernel = "vmlinuz"
initrd = "initrd.img"
ignition = "discovery.ign"
`
}

// dhcpTestbed is a server namespace with br0 (10.99.0.1/24) and a client
// namespace with one veth per client MAC.
type dhcpTestbed struct {
	t      *testing.T
	server *netns.NS
	client *netns.NS
	script string // udhcpc event script printing what it got
}

func newDHCPTestbed(t *testing.T, macs ...string) *dhcpTestbed {
	t.Helper()
	if err := netns.Available(); err != nil {
		t.Skip(err)
	}
	if _, err := exec.LookPath("busybox"); err != nil {
		t.Skip("busybox (udhcpc) is not installed")
	}
	ctx := context.Background()
	tb := &dhcpTestbed{t: t}
	var err error
	if tb.server, err = netns.New(ctx, "rbd-srv"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tb.server.Close() })
	if tb.client, err = netns.New(ctx, "rbd-cli"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tb.client.Close() })
	if err := tb.server.AddBridge(ctx, "br0", "10.99.0.1/24"); err != nil {
		t.Fatal(err)
	}
	for i, mac := range macs {
		if err := tb.server.AddVethToBridge(ctx, "br0", tb.client, fmt.Sprintf("eth%d", i), "", mac); err != nil {
			t.Fatal(err)
		}
	}
	tb.script = filepath.Join(t.TempDir(), "udhcpc.sh")
	script := "#!/bin/sh\n[ \"$1\" = bound ] && echo \"bound ip=$ip hostname=$hostname\"\nexit 0\n"
	if err := os.WriteFile(tb.script, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return tb
}

// lease runs busybox udhcpc on the client's interface eth<i> and returns
// what it was bound to ("ip=... hostname=...").
func (tb *dhcpTestbed) lease(i int) string {
	tb.t.Helper()
	out, err := tb.client.Run(context.Background(), "busybox", "udhcpc", "-f", "-q", "-n", "-t", "5", "-T", "1",
		"-i", fmt.Sprintf("eth%d", i), "-s", tb.script)
	if err != nil {
		tb.t.Fatalf("udhcpc on eth%d: %v\n%s", i, err, out)
	}
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, "bound "); ok {
			return rest
		}
	}
	tb.t.Fatalf("udhcpc on eth%d bound nothing:\n%s", i, out)
	return ""
}

// TestDHCPReloadAndRestart runs the daemon in full mode in a namespace: a
// reserved MAC gets its address and hostname, a SIGHUP adds a reservation
// without dropping leases, and leases survive a restart (data_dir).
func TestDHCPReloadAndRestart(t *testing.T) {
	macs := []string{"52:54:00:00:00:01", "52:54:00:00:00:02", "52:54:00:00:00:03", "52:54:00:00:00:04"}
	tb := newDHCPTestbed(t, macs...)
	d := newTestDaemon(t, "10.99.0.1:8080", "")
	d.writeConfig(dhcpConfigText(""))
	prefix := []string{"ip", "netns", "exec", tb.server.Name}
	d.start(prefix)
	d.waitNote("READY=1", "STATUS=serving: dhcp full")

	if got := tb.lease(0); got != "ip=10.99.0.11 hostname=node-1" {
		t.Errorf("reserved MAC: %s", got)
	}
	if got := tb.lease(1); got != "ip=10.99.0.100 hostname=" {
		t.Errorf("dynamic MAC: %s", got)
	}

	d.writeConfig(dhcpConfigText("\n[[dhcp.reservation]]\nmac = \"52:54:00:00:00:03\"\nip = \"10.99.0.12\"\nhostname = \"node-3\"\n"))
	if st := d.reload(); !strings.Contains(st, "STATUS=reloaded") {
		t.Fatalf("reload: %q", st)
	}
	if got := tb.lease(2); got != "ip=10.99.0.12 hostname=node-3" {
		t.Errorf("MAC reserved by the reload: %s", got)
	}
	if got := tb.lease(1); got != "ip=10.99.0.100 hostname=" {
		t.Errorf("the dynamic lease changed across the reload: %s", got)
	}
	d.stop()

	d.start(prefix)
	d.waitNote("READY=1")
	if got := tb.lease(3); got != "ip=10.99.0.101 hostname=" {
		t.Errorf("a new MAC after the restart got %s; 10.99.0.100 is still leased", got)
	}
	if got := tb.lease(1); got != "ip=10.99.0.100 hostname=" {
		t.Errorf("the dynamic lease was lost across the restart: %s", got)
	}
	metrics, err := tb.server.Run(context.Background(), "curl", "-sf", "http://10.99.0.1:8080/metrics")
	if err != nil || !strings.Contains(metrics, "rackboot_dhcp_acks_total 2\n") {
		t.Errorf("metrics after two leases: %v\n%s", err, metrics)
	}
	for _, want := range []string{
		`rackboot_dhcp_requests_total{outcome="replied",type="REQUEST"} 2`,
		`rackboot_dhcp_pool_addresses{range="10.99.0.100-10.99.0.110"} 11`,
		`rackboot_dhcp_pool_leased_addresses{range="10.99.0.100-10.99.0.110"} 2`,
	} {
		if !strings.Contains(metrics, "\n"+want+"\n") {
			t.Errorf("metrics after two leases lack %s:\n%s", want, metrics)
		}
	}
	d.stop()
}
