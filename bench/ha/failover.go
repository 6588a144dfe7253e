package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"net/http"
	"syscall"
	"time"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"golang.org/x/sys/unix"

	"github.com/rackboot/rackboot/testbed/ha"
)

// failoverResult is the failover run.
type failoverResult struct {
	kills     int
	dhcp, api []time.Duration // per kill: until DHCP answers, until a write is accepted
}

// failover kills the leader b.o.kills times; each time it measures, from
// the kill, when a broadcast DISCOVER is answered and when a PATCH through
// the service address is accepted; then it restarts the killed appliance
// and waits until it has caught up.
func (b *bench) failover(ctx context.Context) (failoverResult, error) {
	res := failoverResult{kills: b.o.kills}
	r, err := b.newRack(ctx, 3, rackDHCP)
	if err != nil {
		return res, err
	}
	defer r.Close()
	api := r.API(time.Second)
	keys, _, err := ha.CreateKeys(ctx, r.API(10*time.Second), ha.ServiceURL(), 1)
	if err != nil {
		return res, err
	}
	probe, err := newProbe(r)
	if err != nil {
		return res, err
	}
	defer probe.close()
	for i := range b.o.kills {
		d, a, err := b.kill(ctx, r, api, keys[0], probe, i)
		if err != nil {
			return res, fmt.Errorf("kill %d: %w", i+1, err)
		}
		res.dhcp, res.api = append(res.dhcp, d), append(res.api, a)
		b.log.Info("failover", "kill", i+1, "dhcp", d, "api", a)
	}
	return res, nil
}

func (b *bench) kill(ctx context.Context, r *ha.Rack, api *ha.API, key string, probe *dhcpProbe, i int) (time.Duration, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	leader, err := r.Leader(ctx)
	if err != nil {
		return 0, 0, err
	}
	if _, err := r.WaitVIP(ctx); err != nil {
		return 0, 0, err
	}
	killed := time.Now()
	if err := leader.Kill(); err != nil {
		return 0, 0, err
	}
	apiDone := make(chan time.Duration, 1)
	go func() {
		for seq := 0; ctx.Err() == nil; seq++ {
			if code, _ := api.SetNTP(ctx, ha.ServiceURL(), key, fmt.Sprintf("f%d-%d.ntp", i, seq)); code == http.StatusCreated {
				apiDone <- time.Since(killed)
				return
			}
			select {
			case <-ctx.Done():
			case <-time.After(20 * time.Millisecond):
			}
		}
		apiDone <- 0
	}()
	dhcpAt, err := probe.untilAnswered(ctx, killed)
	apiAt := <-apiDone
	if err != nil {
		return 0, 0, err
	}
	if apiAt == 0 {
		return 0, 0, fmt.Errorf("the API took no write: %w", ctx.Err())
	}
	if err := leader.Start(ctx); err != nil {
		return 0, 0, err
	}
	if err := b.caughtUp(ctx, r, leader); err != nil {
		return 0, 0, err
	}
	return dhcpAt, apiAt, nil
}

// caughtUp waits until n answers and has applied the leader's commit
// index.
func (b *bench) caughtUp(ctx context.Context, r *ha.Rack, n *ha.Node) error {
	if err := n.WaitHealthy(ctx); err != nil {
		return err
	}
	for ctx.Err() == nil {
		l, err := r.Leader(ctx)
		if err != nil {
			return err
		}
		st, err1 := r.Status(ctx, l)
		mine, err2 := r.Status(ctx, n)
		if err1 == nil && err2 == nil && mine.Applied >= st.Commit {
			return nil
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
	return ctx.Err()
}

// dhcpProbe sends DISCOVERs as a relay agent at the client namespace's
// address (the answer comes back by unicast to port 67 there), broadcast
// on the bridge like a client's.
type dhcpProbe struct {
	conn *net.UDPConn
}

func newProbe(r *ha.Rack) (*dhcpProbe, error) {
	var conn *net.UDPConn
	err := r.Client.Do(func() error {
		lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
			var serr error
			err := c.Control(func(fd uintptr) { serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_BROADCAST, 1) })
			return errors.Join(err, serr)
		}}
		pc, err := lc.ListenPacket(context.Background(), "udp4", ha.ClientAddr+":67")
		if err != nil {
			return err
		}
		conn = pc.(*net.UDPConn)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("dhcp probe socket: %w", err)
	}
	return &dhcpProbe{conn: conn}, nil
}

func (p *dhcpProbe) close() { p.conn.Close() }

// untilAnswered sends a DISCOVER (a new MAC each time) every 20 ms until
// one is answered; it returns the time from since.
func (p *dhcpProbe) untilAnswered(ctx context.Context, since time.Time) (time.Duration, error) {
	buf := make([]byte, 1500)
	to := &net.UDPAddr{IP: net.IPv4bcast, Port: 67}
	for ctx.Err() == nil {
		mac := make(net.HardwareAddr, 6)
		rand.Read(mac)
		mac[0] = 0x02
		d, err := dhcpv4.NewDiscovery(mac, dhcpv4.WithGatewayIP(net.ParseIP(ha.ClientAddr)), dhcpv4.WithHwAddr(mac))
		if err != nil {
			return 0, err
		}
		if _, err := p.conn.WriteTo(d.ToBytes(), to); err != nil {
			return 0, err
		}
		deadline := time.Now().Add(20 * time.Millisecond)
		for {
			p.conn.SetReadDeadline(deadline)
			n, _, err := p.conn.ReadFrom(buf)
			if err != nil {
				break
			}
			if r, err := dhcpv4.FromBytes(buf[:n]); err == nil && r.TransactionID == d.TransactionID &&
				r.MessageType() == dhcpv4.MessageTypeOffer {
				return time.Since(since), nil
			}
		}
	}
	return 0, ctx.Err()
}
