package dhcp

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"net/netip"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/insomniacslk/dhcp/dhcpv4/nclient4"
)

// startServer serves s on a fresh 127.0.0.1 socket until the test ends.
func startServer(t *testing.T, s *Server) *net.UDPAddr {
	t.Helper()
	conn, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, conn) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		conn.Close()
	})
	return conn.LocalAddr().(*net.UDPAddr)
}

func TestServeLoopbackDORA(t *testing.T) {
	s, leases := newTestServer(t, testConfig(), nil)
	s.now = time.Now
	addr := startServer(t, s)
	conn, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	c, err := nclient4.NewWithConn(conn, macDynamic, nclient4.WithServerAddr(addr), nclient4.WithTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	lease, err := c.Request(ctx)
	if err != nil {
		t.Fatalf("DORA over loopback: %v", err)
	}
	ip := lease.ACK.YourIPAddr
	if l, ok := leases.ByMAC(macDynamic); !ok || l.IP.String() != ip.String() {
		t.Errorf("ACK for %v but store has %+v", ip, l)
	}
	waitFor(t, func() bool { return s.Stats().Replied == 2 })
	if st := s.Stats(); st.Offers != 1 || st.Acks != 1 || st.Replied != 2 {
		t.Errorf("stats %+v", st)
	}
}

func TestServeSurvivesMalformed(t *testing.T) {
	s, _ := newTestServer(t, testConfig(), nil)
	addr := startServer(t, s)
	conn, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	garbage := [][]byte{{}, {1, 2, 3}, make([]byte, 300), append(packet(t, dhcpv4.MessageTypeDiscover, macDynamic).ToBytes()[:240], 53, 9)}
	for _, g := range garbage {
		if _, err := conn.WriteTo(g, addr); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := conn.WriteTo(packet(t, dhcpv4.MessageTypeDiscover, macDynamic).ToBytes(), addr); err != nil {
		t.Fatal(err)
	}
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 1500)
	n, _, err := conn.ReadFrom(buf)
	if err != nil {
		t.Fatalf("no reply after malformed packets: %v", err)
	}
	r, err := dhcpv4.FromBytes(buf[:n])
	if err != nil || r.MessageType() != dhcpv4.MessageTypeOffer {
		t.Fatalf("reply %v, err %v; want an OFFER", r, err)
	}
	waitFor(t, func() bool { return s.Stats().DroppedMalformed == uint64(len(garbage)) })
	if st := s.Stats(); st.DroppedMalformed != uint64(len(garbage)) || st.Received != uint64(len(garbage)+1) {
		t.Errorf("stats %+v, want %d malformed of %d", st, len(garbage), len(garbage)+1)
	}
}

// waitFor polls cond until it holds or 10 s pass.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10s")
		}
		runtime.Gosched()
	}
}

// syncBuffer is a bytes.Buffer safe for a concurrent logger.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestServeLogsExhaustion: when the range is used up, the DISCOVER gets no
// reply, the server logs it with the client's MAC and counts it.
func TestServeLogsExhaustion(t *testing.T) {
	cfg := testConfig()
	cfg.Ranges = []Range{{netip.MustParseAddr("10.99.0.100"), netip.MustParseAddr("10.99.0.100")}}
	var logs syncBuffer
	s, err := New(cfg, NewMemoryLeases(), nil, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	addr := startServer(t, s)
	conn, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, mac := range []net.HardwareAddr{macDynamic, macOther} {
		if _, err := conn.WriteTo(packet(t, dhcpv4.MessageTypeDiscover, mac).ToBytes(), addr); err != nil {
			t.Fatal(err)
		}
	}
	// The counter moves before the warning is written: wait for both.
	waitFor(t, func() bool {
		return s.Stats().Exhausted == 1 && s.Stats().Replied == 1 && strings.Contains(logs.String(), "no free address")
	})
	out := logs.String()
	if !strings.Contains(out, "level=WARN") || !strings.Contains(out, "no free address") {
		t.Errorf("exhaustion not logged as a warning:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "no free address") && !strings.Contains(line, "mac=") {
			t.Errorf("exhaustion logged without mac: %s", line)
		}
	}
}
