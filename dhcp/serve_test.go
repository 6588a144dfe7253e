package dhcp

import (
	"context"
	"net"
	"runtime"
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
