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
// completes DORA exchanges for many distinct clients with unique, valid
// leases, and every ACKed lease is in the lease file. Set DHCP_PERF_RATE to run it at a higher rate and
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
	// Loss depends on the machine's load: that is for the benchmarks. The
	// test asserts what perfdhcp checks about the answers, and durability.
	acks := figure(t, out, `(?s)REQUEST-ACK.*?received packets: (\d+)`)
	if acks == 0 {
		t.Errorf("perfdhcp received no ACK")
	}
	for _, bad := range []string{`Malformed packets: (\d+)`, `(?s)REQUEST-ACK.*?rejected leases: (\d+)`, `(?s)REQUEST-ACK.*?non unique addresses: (\d+)`} {
		if n := figure(t, out, bad); n != 0 {
			t.Errorf("%s: %d", bad, n)
		}
	}
	if st := s.Stats(); uint64(leases.Len()) != st.Acks || st.Acks < uint64(acks) {
		t.Errorf("lease file holds %d leases; server ACKed %d, perfdhcp saw %d", leases.Len(), st.Acks, acks)
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
