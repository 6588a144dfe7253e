package dhcp_test

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/insomniacslk/dhcp/iana"
	"github.com/rackboot/rackboot/dhcp"
	"github.com/rackboot/rackboot/testbed/netns"
)

// captured is a DHCP packet seen on a client's port 68.
type captured struct {
	from string
	pkt  *dhcpv4.DHCPv4
}

// capturer collects every DHCP packet reaching port 68 in a client
// namespace, next to the client under test.
type capturer struct {
	mu   sync.Mutex
	pkts []captured
	seen chan struct{}
}

func (l *lab) capture(ns *netns.NS) *capturer {
	l.t.Helper()
	var conn net.PacketConn
	err := ns.Do(func() (err error) {
		conn, err = dhcp.ListenInterface(l.ctx, "eth0", dhcp.PortClient)
		return err
	})
	if err != nil {
		l.t.Fatal(err)
	}
	c := &capturer{seen: make(chan struct{}, 1)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 1500)
		for {
			n, from, err := conn.ReadFrom(buf)
			if err != nil {
				return
			}
			p, err := dhcpv4.FromBytes(buf[:n])
			if err != nil || p.OpCode != dhcpv4.OpcodeBootReply {
				continue
			}
			c.mu.Lock()
			c.pkts = append(c.pkts, captured{from.(*net.UDPAddr).IP.String(), p})
			c.mu.Unlock()
			select {
			case c.seen <- struct{}{}:
			default:
			}
		}
	}()
	l.t.Cleanup(func() { conn.Close(); <-done })
	return c
}

// drain returns and forgets what was captured so far.
func (c *capturer) drain() []captured {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.pkts
	c.pkts = nil
	return p
}

// await waits up to 30 s for a captured packet matching match.
func (c *capturer) await(t *testing.T, match func(captured) bool) captured {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		c.mu.Lock()
		for _, p := range c.pkts {
			if match(p) {
				c.mu.Unlock()
				return p
			}
		}
		c.mu.Unlock()
		select {
		case <-c.seen:
		case <-deadline:
			t.Fatal("expected packet not captured within 30s")
		}
	}
}

// request4011 sends, from the client namespace and its address ip, a UEFI
// x86-64 PXE REQUEST to the boot server port 4011 and returns the reply.
func (l *lab) request4011(ns *netns.NS, ip string) *dhcpv4.DHCPv4 {
	l.t.Helper()
	var conn net.PacketConn
	err := ns.Do(func() (err error) {
		conn, err = net.ListenPacket("udp4", net.JoinHostPort(ip, "0"))
		return err
	})
	if err != nil {
		l.t.Fatal(err)
	}
	defer conn.Close()
	req, err := dhcpv4.New(
		dhcpv4.WithHwAddr(mustMAC("52:54:00:00:00:55")),
		dhcpv4.WithMessageType(dhcpv4.MessageTypeRequest),
		dhcpv4.WithClientIP(net.ParseIP(ip)),
		dhcpv4.WithOption(dhcpv4.OptClassIdentifier("PXEClient:Arch:00007:UNDI:003016")),
		dhcpv4.WithOption(dhcpv4.OptClientArch(iana.EFI_X86_64)),
	)
	if err != nil {
		l.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(l.ctx, 20*time.Second)
	defer cancel()
	conn.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := conn.WriteTo(req.ToBytes(), &net.UDPAddr{IP: net.ParseIP("10.99.0.1"), Port: dhcp.PortPXE}); err != nil {
		l.t.Fatal(err)
	}
	buf := make([]byte, 1500)
	for ctx.Err() == nil {
		n, _, err := conn.ReadFrom(buf)
		if err != nil {
			l.t.Fatalf("no reply on port 4011: %v", err)
		}
		if p, err := dhcpv4.FromBytes(buf[:n]); err == nil && p.TransactionID == req.TransactionID {
			return p
		}
	}
	l.t.Fatal("no reply on port 4011")
	return nil
}
