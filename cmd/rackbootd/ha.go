package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rackboot/rackboot/cmd/rackbootd/internal/config"
	"github.com/rackboot/rackboot/dhcp"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/vip"
)

// The rack-wide services that only the leader runs: the service address
// (the VIP every URL handed to hosts and BMCs names, [cluster] vip) and
// DHCP answering. Both follow the store's leadership: on a deposed or
// cut-off leader they stop as soon as raft steps down (within its leader
// lease), on the new leader they start.

// vipSettings is the service address and its interface from [cluster];
// the zero prefix when none is configured.
func vipSettings(cfg *config.Config) (netip.Prefix, string) {
	if cfg.Cluster == nil {
		return netip.Prefix{}, ""
	}
	return cfg.Cluster.VIP, cfg.Cluster.VIPInterface
}

// newVIP opens the service address when one is configured and removes it
// from the interface if an earlier run (killed before it could) left it
// there: this node holds it only once it leads.
func (d *daemon) newVIP() error {
	addr, ifname := vipSettings(d.cfg)
	if !addr.IsValid() {
		return nil
	}
	v, err := vip.New(vip.Config{Interface: ifname, Address: addr, Log: d.log.With("service", "vip")})
	if err != nil {
		return fmt.Errorf("service address: %w", err)
	}
	d.vip = v
	if err := v.Release(); err != nil {
		return fmt.Errorf("service address: %w", err)
	}
	return nil
}

// runLeader starts the data directory's guard and holds the service
// address while this node leads (and its disk has room).
func (d *daemon) runLeader(ctx context.Context) {
	d.disk = newDiskGuard(d.cfg.Server.DataDir, d.log.With("service", "disk"))
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		d.disk.run(ctx, diskInterval)
	}()
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		d.disk.handOverWhileFull(ctx, d.store, diskInterval)
	}()
	if d.vip == nil {
		return
	}
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		engine.WhileLeader(ctx, d.duties(), func(ctx context.Context) {
			if err := d.vip.Hold(ctx); err != nil {
				d.log.Error("holding the service address failed", "vip", d.vip.Address().String(), "err", err)
			}
		})
	}()
}

// duties is the store as the leader-only rack services see it: leading
// counts only while the data directory has room (diskguard.go).
func (d *daemon) duties() engine.Store { return guardedStore{Store: d.store, g: d.disk} }

// serveDHCP answers DHCP on the leader only (leaderDHCP). runLeader runs
// first.
func (d *daemon) serveDHCP(ctx context.Context) error {
	l := &leaderDHCP{srv: d.dhcp, conns: d.dhcpConns, log: d.log.With("service", "dhcp")}
	return l.serve(ctx, d.duties())
}

// leadership is the part of engine.Store that leaderDHCP follows.
type leadership interface {
	LeaderChanges(ctx context.Context) <-chan bool
	Barrier(ctx context.Context) error
}

// leaderDHCP answers DHCP while this node leads and reads and drops what
// arrives while it does not, so that exactly one appliance of a rack
// answers and a new leader does not answer requests queued before it led.
type leaderDHCP struct {
	srv     *dhcp.Server
	conns   []net.PacketConn
	log     *slog.Logger
	dropped atomic.Uint64 // requests dropped while not leading
}

// serve follows st's leadership until ctx is done (nil) or a socket fails.
func (l *leaderDHCP) serve(ctx context.Context, st leadership) error {
	errc := make(chan error, 1)
	var cur *dhcpRun
	defer func() { cur.stop() }()
	changes := st.LeaderChanges(ctx)
	for {
		select {
		case leader, ok := <-changes:
			if !ok {
				return nil
			}
			cur.stop()
			cur = l.start(ctx, st, leader, errc)
		case err := <-errc:
			return err
		case <-ctx.Done():
			return nil
		}
	}
}

// dhcpRun is one phase of leaderDHCP: serving or draining.
type dhcpRun struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// start starts a phase; its failure (not its end by stop) goes to errc.
func (l *leaderDHCP) start(ctx context.Context, st leadership, leader bool, errc chan<- error) *dhcpRun {
	ctx, cancel := context.WithCancel(ctx)
	r := &dhcpRun{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		if err := l.phase(ctx, st, leader); err != nil && ctx.Err() == nil {
			select {
			case errc <- err:
			default:
			}
		}
	}()
	return r
}

// stop ends the phase and waits for it; a nil run is a no-op.
func (r *dhcpRun) stop() {
	if r == nil {
		return
	}
	r.cancel()
	<-r.done
}

// phase serves (leader) or drains (follower) every socket until ctx is
// done. A new leader first applies every lease committed before it led
// (a barrier), draining meanwhile, so that it never offers an address its
// predecessor has just given.
func (l *leaderDHCP) phase(ctx context.Context, st leadership, leader bool) error {
	for _, c := range l.conns {
		c.SetReadDeadline(time.Time{}) // the last phase's stop set one
	}
	if leader {
		if !l.caughtUp(ctx, st) {
			return nil
		}
		for _, c := range l.conns {
			c.SetReadDeadline(time.Time{}) // the barrier's drains set one
		}
		l.log.Info("leading: answering DHCP")
		return l.srv.ServeAll(ctx, l.conns...)
	}
	l.log.Info("not leading: DHCP requests are left to the leader")
	var wg sync.WaitGroup
	errs := make([]error, len(l.conns))
	for i, c := range l.conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = l.drain(ctx, c)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// caughtUp drains the sockets until a barrier returns (retried each
// second while it fails); false only when ctx ends first.
func (l *leaderDHCP) caughtUp(ctx context.Context, st leadership) bool {
	bctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, c := range l.conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.drain(bctx, c)
		}()
	}
	defer wg.Wait()
	defer cancel()
	for warned := false; ; warned = true {
		err := st.Barrier(ctx)
		if err == nil {
			return true
		}
		if !warned {
			l.log.Warn("leading, but the lease state is not up to date yet: DHCP waits", "err", err)
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(time.Second):
		}
	}
}

// drain reads and drops packets from c until ctx is done (nil) or c fails.
// It returns only once its deadline-setting at ctx's end has run or never
// will, so that the deadline cannot land in the next phase.
func (l *leaderDHCP) drain(ctx context.Context, c net.PacketConn) error {
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(fired)
		c.SetReadDeadline(time.Unix(1, 0))
	})
	defer func() {
		if !stop() {
			<-fired
		}
	}()
	buf := make([]byte, 1500)
	for {
		if _, _, err := c.ReadFrom(buf); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return fmt.Errorf("dhcp: read: %w", err)
		}
		l.dropped.Add(1)
	}
}
