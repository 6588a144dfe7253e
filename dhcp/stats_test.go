package dhcp

import (
	"context"
	"net"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/insomniacslk/dhcp/dhcpv4/nclient4"
)

// TestStatsByTypeAndUsage: a DORA over loopback and a malformed packet are
// counted by message type and outcome, and the lease shows in its range's
// use.
func TestStatsByTypeAndUsage(t *testing.T) {
	s, _ := newTestServer(t, testConfig(), nil)
	s.now = time.Now
	addr := startServer(t, s)
	conn, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.WriteTo([]byte("not dhcp"), addr); err != nil {
		t.Fatal(err)
	}
	c, err := nclient4.NewWithConn(conn, macDynamic, nclient4.WithServerAddr(addr), nclient4.WithTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := c.Request(ctx); err != nil {
		t.Fatalf("DORA over loopback: %v", err)
	}
	waitFor(t, func() bool { return s.Stats().Received == 3 })
	want := []RequestCount{
		{Type: "unknown", Outcome: OutcomeMalformed, N: 1},
		{Type: "DISCOVER", Outcome: OutcomeReplied, N: 1},
		{Type: "REQUEST", Outcome: OutcomeReplied, N: 1},
	}
	if got := s.Stats().Requests; !slices.Equal(got, want) {
		t.Errorf("Requests = %+v, want %+v", got, want)
	}
	use := s.Usage(time.Now())
	wantUse := []RangeUsage{{Range: Range{netip.MustParseAddr("10.99.0.100"), netip.MustParseAddr("10.99.0.200")}, Size: 101, Leased: 1}}
	if !slices.Equal(use, wantUse) {
		t.Errorf("Usage = %+v, want %+v", use, wantUse)
	}
	if got := OutcomeExhausted.String(); got != "exhausted" {
		t.Errorf("OutcomeExhausted = %q", got)
	}
}
