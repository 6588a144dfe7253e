package steps

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"syscall"
	"time"

	"golang.org/x/net/icmp"
	"golang.org/x/net/ipv4"
	"golang.org/x/net/ipv6"
	"golang.org/x/sys/unix"
)

// probe is one ICMP echo target and what came back.
type probe struct {
	addr     netip.Addr
	payload  int // echo payload bytes
	sent     int
	received int
	rttSum   time.Duration
	sentAt   map[int]time.Time // by sequence number
}

// pinger sends ICMP echo requests on one IPv4 and one IPv6 socket. Raw
// sockets (root) are used when possible, unprivileged ICMP datagram
// sockets otherwise. With dontFragment the IPv4/IPv6 don't-fragment path
// MTU discovery mode is set, so an echo larger than the path MTU fails.
type pinger struct {
	c4, c6 net.PacketConn
	raw    bool
	id     int
}

// openPinger creates the sockets in the calling thread's network
// namespace. A family that cannot be opened is left nil.
func openPinger(dontFragment bool) (*pinger, error) {
	var idb [2]byte
	_, _ = rand.Read(idb[:])
	p := &pinger{id: int(binary.BigEndian.Uint16(idb[:])), raw: true}
	var err4, err6 error
	p.c4, err4 = net.ListenPacket("ip4:icmp", "0.0.0.0")
	p.c6, err6 = net.ListenPacket("ip6:ipv6-icmp", "::")
	if err4 != nil && err6 != nil {
		if dontFragment {
			return nil, fmt.Errorf("steps: raw ICMP sockets: %w", err4)
		}
		p.raw = false
		p.c4, err4 = icmp.ListenPacket("udp4", "0.0.0.0")
		p.c6, err6 = icmp.ListenPacket("udp6", "::")
	}
	if err4 != nil && err6 != nil {
		return nil, fmt.Errorf("steps: ICMP sockets: %w", err4)
	}
	if dontFragment {
		setDF(p.c4, unix.IPPROTO_IP, unix.IP_MTU_DISCOVER, unix.IP_PMTUDISC_DO)
		setDF(p.c6, unix.IPPROTO_IPV6, unix.IPV6_MTU_DISCOVER, unix.IPV6_PMTUDISC_DO)
	}
	return p, nil
}

func setDF(c net.PacketConn, level, opt, val int) {
	sc, ok := c.(interface {
		SyscallConn() (syscall.RawConn, error)
	})
	if !ok || c == nil {
		return
	}
	if rc, err := sc.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) { _ = unix.SetsockoptInt(int(fd), level, opt, val) })
	}
}

func (p *pinger) close() {
	for _, c := range []net.PacketConn{p.c4, p.c6} {
		if c != nil {
			c.Close()
		}
	}
}

// run sends rounds of one echo to every probe, waiting wait for replies
// after each round, and fills in sent, received and rttSum.
func (p *pinger) run(ctx context.Context, probes []*probe, rounds int, wait time.Duration) {
	var mu sync.Mutex
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for _, c := range []net.PacketConn{p.c4, p.c6} {
		if c == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.receive(c, probes, &mu, stop)
		}()
	}
	seq := 0
	for r := 0; r < rounds && ctx.Err() == nil; r++ {
		for _, pr := range probes {
			seq++
			mu.Lock()
			pr.sent++ // a send the kernel refuses (e.g. EMSGSIZE) is a lost echo
			// Stamped before sending (the reply is matched under mu, after).
			if at := time.Now(); p.send(pr, seq&0xffff) == nil {
				pr.sentAt[seq&0xffff] = at
			}
			mu.Unlock()
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
	close(stop)
	for _, c := range []net.PacketConn{p.c4, p.c6} {
		if c != nil {
			_ = c.SetReadDeadline(time.Now())
		}
	}
	wg.Wait()
}

func (p *pinger) send(pr *probe, seq int) error {
	c, typ := p.c4, icmp.Type(ipv4.ICMPTypeEcho)
	if pr.addr.Is6() {
		c, typ = p.c6, ipv6.ICMPTypeEchoRequest
	}
	if c == nil {
		return fmt.Errorf("steps: no ICMP socket for %s", pr.addr)
	}
	msg := icmp.Message{Type: typ, Body: &icmp.Echo{ID: p.id, Seq: seq, Data: make([]byte, pr.payload)}}
	b, err := msg.Marshal(nil)
	if err != nil {
		return err
	}
	var dst net.Addr = &net.IPAddr{IP: pr.addr.AsSlice(), Zone: pr.addr.Zone()}
	if !p.raw {
		dst = &net.UDPAddr{IP: pr.addr.AsSlice(), Zone: pr.addr.Zone()}
	}
	_, err = c.WriteTo(b, dst)
	return err
}

func (p *pinger) receive(c net.PacketConn, probes []*probe, mu *sync.Mutex, stop <-chan struct{}) {
	buf := make([]byte, 65536)
	proto := 1
	if c == p.c6 {
		proto = 58
	}
	for {
		select {
		case <-stop:
			return
		default:
		}
		n, from, err := c.ReadFrom(buf)
		if err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				select {
				case <-stop:
					return
				default:
					_ = c.SetReadDeadline(time.Time{})
					continue
				}
			}
			return
		}
		p.match(proto, buf[:n], from, probes, mu)
	}
}

func (p *pinger) match(proto int, b []byte, from net.Addr, probes []*probe, mu *sync.Mutex) {
	m, err := icmp.ParseMessage(proto, b)
	if err != nil || (m.Type != ipv4.ICMPTypeEchoReply && m.Type != ipv6.ICMPTypeEchoReply) {
		return
	}
	echo, ok := m.Body.(*icmp.Echo)
	if !ok || (p.raw && echo.ID != p.id) {
		return
	}
	var src netip.Addr
	switch a := from.(type) {
	case *net.IPAddr:
		src, _ = netip.AddrFromSlice(a.IP)
	case *net.UDPAddr:
		src, _ = netip.AddrFromSlice(a.IP)
	}
	src = src.Unmap()
	now := time.Now()
	mu.Lock()
	defer mu.Unlock()
	for _, pr := range probes {
		if pr.addr.WithZone("") != src.WithZone("") {
			continue
		}
		if at, ok := pr.sentAt[echo.Seq]; ok {
			delete(pr.sentAt, echo.Seq)
			pr.received++
			pr.rttSum += now.Sub(at)
		}
	}
}
