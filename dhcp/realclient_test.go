package dhcp_test

import (
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/rackboot/rackboot/dhcp"
)

// TestUdhcpcFullMode: busybox udhcpc gets a reserved address with its host
// name, and a dynamic one from the range that survives a renew and is freed
// by a release.
func TestUdhcpcFullMode(t *testing.T) {
	l := newLab(t)
	_, leases := l.serve(labConfig())

	t.Run("reservation", func(t *testing.T) {
		ns := l.client("udres", "52:54:00:00:00:01", "")
		script, out := l.script("udhcpc-res", udhcpcScript)
		if o, err := ns.Run(l.ctx, "busybox", "udhcpc", "-f", "-q", "-n", "-i", "eth0", "-s", script, "-t", "5", "-T", "2"); err != nil {
			t.Fatalf("udhcpc: %v\n%s", err, o)
		}
		ev := l.waitEvent(out, 0, "bound")
		want := map[string]string{"ip": "10.99.0.11", "hostname": "master-0", "subnet": "255.255.255.0",
			"router": "10.99.0.1", "dns": "10.99.0.1", "domain": "rack.test", "serverid": "10.99.0.1", "lease": "600"}
		for k, v := range want {
			if strings.TrimSpace(ev[k]) != v {
				t.Errorf("%s = %q, want %q", k, ev[k], v)
			}
		}
		if ev["boot_file"] != "" {
			t.Errorf("non-PXE client got boot_file %q", ev["boot_file"])
		}
	})

	t.Run("dynamic renew release", func(t *testing.T) {
		mac := "52:54:00:00:00:42"
		ns := l.client("uddyn", mac, "")
		script, out := l.script("udhcpc-dyn", udhcpcScript)
		cmd := ns.Command(l.ctx, "busybox", "udhcpc", "-f", "-i", "eth0", "-s", script, "-t", "5", "-T", "2")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { cmd.Process.Kill(); cmd.Wait() }()
		bound := l.waitEvent(out, 0, "bound")
		ip, err := netip.ParseAddr(bound["ip"])
		if err != nil || !labConfig().Ranges[0].Contains(ip) {
			t.Fatalf("dynamic client got %q, outside the range", bound["ip"])
		}
		if lease, ok := leases.ByMAC(mustMAC(mac)); !ok || lease.IP != ip {
			t.Fatalf("lease store has %+v, %v for %s", lease, ok, ip)
		}
		// `ip netns exec` execs udhcpc in place: the pid is udhcpc's.
		udhcpc := cmd.Process.Pid
		n := len(events(out))
		if err := syscall.Kill(udhcpc, syscall.SIGUSR1); err != nil {
			t.Fatal(err)
		}
		renew := l.waitEvent(out, n, "renew")
		if renew["ip"] != ip.String() {
			t.Errorf("renew gave %q, had %s", renew["ip"], ip)
		}
		n = len(events(out))
		if err := syscall.Kill(udhcpc, syscall.SIGUSR2); err != nil {
			t.Fatal(err)
		}
		l.waitEvent(out, n, "deconfig")
		waitUntil(t, func() bool { _, ok := leases.ByIP(ip); return !ok })
	})
}

// TestDhclientFullMode: ISC dhclient gets a lease, gets the same address
// again from its lease file (INIT-REBOOT), and releases it.
func TestDhclientFullMode(t *testing.T) {
	l := newLab(t)
	_, leases := l.serve(labConfig())
	mac := "52:54:00:00:00:77"
	ns := l.client("dhcl", mac, "")
	script, out := l.script("dhclient", dhclientScript)
	conf := filepath.Join(l.dir, "dhclient.conf")
	os.WriteFile(conf, []byte("request subnet-mask, routers, domain-name-servers, host-name, domain-name;\n"), 0o644)
	lf, pf := filepath.Join(l.dir, "dhclient.leases"), filepath.Join(l.dir, "dhclient.pid")
	args := []string{"-1", "-v", "-cf", conf, "-sf", script, "-lf", lf, "-pf", pf, "eth0"}
	t.Cleanup(func() { killPIDFile(pf) })

	if o, err := ns.Run(l.ctx, "dhclient", args...); err != nil {
		t.Fatalf("dhclient: %v\n%s", err, o)
	}
	bound := l.waitEvent(out, 0, "BOUND")
	ip, err := netip.ParseAddr(bound["ip"])
	if err != nil || !labConfig().Ranges[0].Contains(ip) {
		t.Fatalf("dhclient got %q, outside the range", bound["ip"])
	}
	if bound["domain"] != "rack.test" || bound["router"] != "10.99.0.1" || bound["serverid"] != "10.99.0.1" {
		t.Errorf("options: %v", bound)
	}
	// Stop the daemon without releasing, then start again: it asks for its
	// old address and must get it.
	killPIDFile(pf)
	n := len(events(out))
	if o, err := ns.Run(l.ctx, "dhclient", args...); err != nil {
		t.Fatalf("dhclient again: %v\n%s", err, o)
	}
	again := l.waitEvent(out, n, "REBOOT")
	if again["ip"] != ip.String() {
		t.Errorf("second run got %q, first %s", again["ip"], ip)
	}
	n = len(events(out))
	if o, err := ns.Run(l.ctx, "dhclient", append([]string{"-r"}, args[1:]...)...); err != nil {
		t.Fatalf("dhclient -r: %v\n%s", err, o)
	}
	l.waitEvent(out, n, "RELEASE")
	waitUntil(t, func() bool { _, ok := leases.ByIP(ip); return !ok })
	if st := leases.Len(); st != 0 {
		t.Errorf("%d leases left after release", st)
	}
}

// killPIDFile stops the daemon whose pid a client wrote to path.
func killPIDFile(path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 1 {
		syscall.Kill(pid, syscall.SIGTERM)
	}
	os.Remove(path)
}

var _ = dhcp.PortServer
