package dhcp_test

import (
	"net/netip"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"

	"github.com/rackboot/rackboot/dhcp"
)

// TestPerfdhcp: Kea's perfdhcp, acting as a relay (giaddr = its address),
// completes DORA exchanges for many distinct clients, and every ACKed lease
// is in the lease file. Set DHCP_PERF_RATE to run it at a higher rate and
// see the figures (the bench/ suite measures properly).
func TestPerfdhcp(t *testing.T) {
	if _, err := exec.LookPath("perfdhcp"); err != nil {
		t.Skip("perfdhcp not installed")
	}
	l := newLab(t)
	cfg := labConfig()
	cfg.Subnet = netip.MustParsePrefix("10.99.0.0/16")
	cfg.Ranges = []dhcp.Range{{Start: netip.MustParseAddr("10.99.1.0"), End: netip.MustParseAddr("10.99.255.254")}}
	s, leases := l.serve(cfg)
	ns := l.client("perf", "52:54:00:00:0f:01", "10.99.0.2/16")
	rate, n := "200", "400"
	if r := os.Getenv("DHCP_PERF_RATE"); r != "" {
		rate, n = r, strconv.Itoa(mustAtoi(t, r)*5)
	}
	out, err := ns.Run(l.ctx, "perfdhcp", "-4", "-l", "eth0", "-r", rate, "-n", n, "-R", n, "10.99.0.1")
	t.Logf("perfdhcp:\n%s", out)
	// perfdhcp exits 3 when any packet was dropped; the figures decide.
	if err != nil && !regexp.MustCompile(`received packets: \d+`).MatchString(out) {
		t.Fatalf("perfdhcp: %v", err)
	}
	discovers := figure(t, out, `(?s)DISCOVER-OFFER.*?sent packets: (\d+)`)
	acks := figure(t, out, `(?s)REQUEST-ACK.*?received packets: (\d+)`)
	if acks == 0 || acks*100 < discovers*99 {
		t.Errorf("%d ACKs for %d DISCOVERs: more than 1%% of the exchanges lost", acks, discovers)
	}
	if leases.Len() < acks {
		t.Errorf("lease file holds %d leases, %d were ACKed", leases.Len(), acks)
	}
	t.Logf("server stats %+v", s.Stats())
}

func figure(t *testing.T, out, re string) int {
	t.Helper()
	m := regexp.MustCompile(re).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no match for %s in perfdhcp output", re)
	}
	return mustAtoi(t, m[1])
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
