package dhcp_test

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/dhcp"
	"github.com/rackboot/rackboot/dhcp/leasefile"
	"github.com/rackboot/rackboot/testbed/netns"
)

// lab is a rack namespace with bridge br0 (10.99.0.1/24, the server's
// address) and client namespaces plugged into it.
type lab struct {
	t    *testing.T
	ctx  context.Context
	rack *netns.NS
	dir  string
}

func newLab(t *testing.T) *lab {
	t.Helper()
	return newLabOn(t, "10.99.0.1/24")
}

// newLabOn is newLab with another address on br0.
func newLabOn(t *testing.T, cidr string) *lab {
	t.Helper()
	if err := netns.Available(); err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	rack, err := netns.New(ctx, "dhcprack")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rack.Close() })
	if err := rack.AddBridge(ctx, "br0", cidr); err != nil {
		t.Fatal(err)
	}
	return &lab{t: t, ctx: ctx, rack: rack, dir: t.TempDir()}
}

// client adds a namespace whose eth0 (with mac) is on br0; cidr may be "".
func (l *lab) client(name, mac, cidr string) *netns.NS {
	l.t.Helper()
	ns, err := netns.New(l.ctx, name)
	if err != nil {
		l.t.Fatal(err)
	}
	l.t.Cleanup(func() { ns.Close() })
	if err := l.rack.AddVethToBridge(l.ctx, "br0", ns, "eth0", cidr, mac); err != nil {
		l.t.Fatal(err)
	}
	return ns
}

func labConfig() dhcp.Config {
	a := netip.MustParseAddr
	return dhcp.Config{
		ServerIP:   a("10.99.0.1"),
		Subnet:     netip.MustParsePrefix("10.99.0.0/24"),
		Ranges:     []dhcp.Range{{Start: a("10.99.0.100"), End: a("10.99.0.200")}},
		Router:     a("10.99.0.1"),
		DNS:        []netip.Addr{a("10.99.0.1")},
		DomainName: "rack.test",
		LeaseTime:  10 * time.Minute,
		Reservations: []dhcp.Reservation{
			{MAC: mustMAC("52:54:00:00:00:01"), IP: a("10.99.0.11"), Hostname: "master-0"},
		},
		HTTPBase: "http://10.99.0.1:8080",
	}
}

func mustMAC(s string) net.HardwareAddr {
	m, err := net.ParseMAC(s)
	if err != nil {
		panic(err)
	}
	return m
}

// serve runs a server for cfg inside the rack namespace on br0, with a
// lease file under the lab's directory.
func (l *lab) serve(cfg dhcp.Config) (*dhcp.Server, *leasefile.File) {
	l.t.Helper()
	leases, err := leasefile.Open(l.dir, nil)
	if err != nil {
		l.t.Fatal(err)
	}
	level := slog.LevelDebug
	if os.Getenv("DHCP_PERF_RATE") != "" {
		level = slog.LevelWarn
	}
	s, err := dhcp.New(cfg, leases, nil, slog.New(slog.NewTextHandler(testWriter{l.t}, &slog.HandlerOptions{Level: level})))
	if err != nil {
		l.t.Fatal(err)
	}
	ports := []int{dhcp.PortServer}
	if cfg.Mode == dhcp.ModeProxy {
		ports = append(ports, dhcp.PortPXE)
	}
	var conns []net.PacketConn
	err = l.rack.Do(func() error {
		for _, p := range ports {
			c, err := dhcp.ListenInterface(l.ctx, "br0", p)
			if err != nil {
				return err
			}
			conns = append(conns, c)
		}
		return nil
	})
	if err != nil {
		l.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(l.ctx)
	done := make(chan error, 1)
	go func() { done <- s.ServeAll(ctx, conns...) }()
	l.t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			l.t.Errorf("ServeAll: %v", err)
		}
		for _, c := range conns {
			c.Close()
		}
		leases.Close()
	})
	return s, leases
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// udhcpcScript prints each event's variables to out, one block per event,
// and configures the interface on bound/renew so unicast renewals work.
const udhcpcScript = `#!/bin/sh
{
echo "event=$1"
for v in ip subnet router dns domain hostname serverid siaddr boot_file lease opt60 opt43; do
  eval "echo $v=\$$v"
done
echo end
} >> %s
case "$1" in
bound|renew) busybox ifconfig "$interface" "$ip" netmask "$subnet" ;;
deconfig) busybox ifconfig "$interface" 0.0.0.0 ;;
esac
exit 0
`

// dhclientScript prints dhclient's variables to out.
const dhclientScript = `#!/bin/sh
{
echo "event=$reason"
echo "ip=$new_ip_address"
echo "hostname=$new_host_name"
echo "domain=$new_domain_name"
echo "router=$new_routers"
echo "serverid=$new_dhcp_server_identifier"
echo "old_ip=$old_ip_address"
echo end
} >> %s
case "$reason" in
BOUND|RENEW|REBIND|REBOOT) busybox ifconfig "$interface" "$new_ip_address" netmask "$new_subnet_mask" ;;
EXPIRE|FAIL|RELEASE|STOP) busybox ifconfig "$interface" 0.0.0.0 ;;
esac
exit 0
`

// script writes a client script that logs into a fresh file and returns the
// script's and the log's paths.
func (l *lab) script(name, tmpl string) (string, string) {
	l.t.Helper()
	out := filepath.Join(l.dir, name+".events")
	path := filepath.Join(l.dir, name+".sh")
	if err := os.WriteFile(path, []byte(fmt.Sprintf(tmpl, out)), 0o755); err != nil {
		l.t.Fatal(err)
	}
	return path, out
}

// events parses the event blocks a script wrote.
func events(path string) []map[string]string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var evs []map[string]string
	cur := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "end" {
			evs = append(evs, cur)
			cur = map[string]string{}
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok {
			cur[k] = v
		}
	}
	return evs
}

// waitEvent polls the event log until an event named name appears after the
// first skip events, and returns it.
func (l *lab) waitEvent(path string, skip int, name string) map[string]string {
	l.t.Helper()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(60 * time.Second)
	for {
		evs := events(path)
		for i := skip; i < len(evs); i++ {
			if evs[i]["event"] == name {
				return evs[i]
			}
		}
		select {
		case <-tick.C:
		case <-deadline:
			l.t.Fatalf("no %q event in %s within 60s; got %v", name, path, evs)
		case <-l.ctx.Done():
			l.t.Fatalf("lab context done waiting for %q", name)
		}
	}
}

// waitUntil polls cond every 50 ms for up to 30 s.
func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(30 * time.Second)
	for !cond() {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatal("condition not met within 30s")
		}
	}
}
