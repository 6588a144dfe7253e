package vip

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
)

// Sentinel errors, wrapped by the errors of this package.
var (
	ErrConfig  = errors.New("vip: invalid config")
	ErrNetlink = errors.New("vip: netlink")
	ErrARP     = errors.New("vip: gratuitous ARP")
)

// Defaults for the zero Config fields.
const (
	DefaultAnnouncements = 3
	DefaultInterval      = 500 * time.Millisecond
)

// Config says which address to hold on which interface.
type Config struct {
	// Interface is the network interface the address is added to.
	Interface string
	// Address is the service address with the prefix length it is added
	// with, e.g. 10.99.0.1/24. IPv4 only.
	Address netip.Prefix
	// Announcements is how many rounds of gratuitous ARP Hold sends after
	// adding the address (default 3), Interval apart (default 500 ms).
	Announcements int
	Interval      time.Duration
	// Log receives what the address does; nil discards.
	Log *slog.Logger
}

func (c Config) withDefaults() Config {
	if c.Announcements <= 0 {
		c.Announcements = DefaultAnnouncements
	}
	if c.Interval <= 0 {
		c.Interval = DefaultInterval
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	return c
}

// Validate reports what is wrong with c, wrapping ErrConfig.
func (c Config) Validate() error {
	if c.Interface == "" {
		return fmt.Errorf("%w: no interface", ErrConfig)
	}
	if !c.Address.IsValid() || !c.Address.Addr().Is4() {
		return fmt.Errorf("%w: address %q is not an IPv4 address with a prefix length", ErrConfig, c.Address)
	}
	a := c.Address.Addr()
	if a.IsUnspecified() || a.IsLoopback() || a.IsMulticast() ||
		(c.Address.Bits() < 31 && a == broadcastOf(c.Address)) {
		return fmt.Errorf("%w: %s cannot be a service address", ErrConfig, c.Address)
	}
	return nil
}

// broadcastOf is the broadcast address of p.
func broadcastOf(p netip.Prefix) netip.Addr {
	b := p.Masked().Addr().As4()
	host := uint32(1)<<(32-p.Bits()) - 1
	for i := range 4 {
		b[i] |= byte(host >> (8 * (3 - i)))
	}
	return netip.AddrFrom4(b)
}

// VIP is the service address on one interface. Create it with New, Close it
// when done. Its methods may be called from any goroutine.
type VIP struct {
	cfg   Config
	index int // the interface's
	lo    int // the loopback interface's
	mac   net.HardwareAddr
	mu    sync.Mutex // serializes netlink requests
	nl    *netlinkConn
	arp   *arpConn
	held  atomic.Bool // answer ARP for the address
	stop  chan struct{}
	done  chan struct{}

	closeOnce sync.Once
	closeErr  error
}

// New checks cfg, looks up the interfaces, opens the netlink and packet
// sockets in the calling thread's network namespace, makes the kernel leave
// ARP for the service address to this process (arp_ignore, arp_announce of
// the interface) and starts answering ARP requests for it while it is held.
func New(cfg Config) (*VIP, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	ifc, err := net.InterfaceByName(cfg.Interface)
	if err != nil {
		return nil, fmt.Errorf("%w: interface %s: %w", ErrConfig, cfg.Interface, err)
	}
	if len(ifc.HardwareAddr) != 6 {
		return nil, fmt.Errorf("%w: interface %s has no Ethernet address", ErrConfig, cfg.Interface)
	}
	lo, err := loopback()
	if err != nil {
		return nil, err
	}
	if err := leaveARPToUs(cfg.Interface); err != nil {
		return nil, err
	}
	v := &VIP{cfg: cfg, index: ifc.Index, lo: lo, mac: ifc.HardwareAddr, stop: make(chan struct{}), done: make(chan struct{})}
	if v.nl, err = openNetlink(); err != nil {
		return nil, err
	}
	if v.arp, err = openARP(ifc.Index); err != nil {
		v.nl.close()
		return nil, err
	}
	go v.answer()
	return v, nil
}

// Address is the service address with its prefix length.
func (v *VIP) Address() netip.Prefix { return v.cfg.Address }

// MAC is the hardware address the service address is announced with.
func (v *VIP) MAC() net.HardwareAddr { return v.mac }

// host is the service address as a /32, as it sits on the loopback.
func (v *VIP) host() netip.Prefix { return netip.PrefixFrom(v.cfg.Address.Addr(), 32) }

// Acquire adds the address (an address already there is fine), starts
// answering ARP for it and sends one gratuitous ARP announcement.
func (v *VIP) Acquire(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	v.mu.Lock()
	added, err := v.nl.addAddr(v.lo, v.host())
	v.mu.Unlock()
	if err != nil {
		return fmt.Errorf("add %s: %w", v.host(), err)
	}
	v.held.Store(true)
	log := v.cfg.Log.With("vip", v.cfg.Address.Addr().String(), "interface", v.cfg.Interface)
	if added {
		log.Info("service address added")
	} else {
		log.Info("service address was already there")
	}
	return v.Announce()
}

// Announce sends one gratuitous ARP announcement: a request and a reply.
func (v *VIP) Announce() error {
	for _, op := range []uint16{opRequest, opReply} {
		if err := v.arp.send(garpFrame(op, v.mac, v.cfg.Address.Addr())); err != nil {
			return fmt.Errorf("%w on %s: %w", ErrARP, v.cfg.Interface, err)
		}
	}
	return nil
}

// Release stops answering ARP for the address and removes it; an address
// already gone is fine. It also removes the address from the interface
// itself, where an older rackbootd put it.
func (v *VIP) Release() error {
	v.held.Store(false)
	v.mu.Lock()
	removed, err := v.nl.delAddr(v.lo, v.host())
	var legacy bool
	if err == nil {
		legacy, err = v.nl.delAddr(v.index, v.cfg.Address)
	}
	v.mu.Unlock()
	if err != nil {
		return fmt.Errorf("remove %s: %w", v.cfg.Address.Addr(), err)
	}
	if removed || legacy {
		v.cfg.Log.Info("service address removed", "vip", v.cfg.Address.Addr().String(), "interface", v.cfg.Interface)
	}
	return nil
}

// Hold acquires the address, repeats the announcement Announcements times
// in all, Interval apart, and releases the address when ctx is done. It
// returns the first error of acquiring or releasing; failed repeats are
// only logged.
func (v *VIP) Hold(ctx context.Context) error {
	if err := v.Acquire(ctx); err != nil {
		return errors.Join(err, v.Release())
	}
	t := time.NewTicker(v.cfg.Interval)
	defer t.Stop()
	for sent := 1; ; {
		select {
		case <-ctx.Done():
			return v.Release()
		case <-t.C:
			if sent >= v.cfg.Announcements {
				t.Stop()
				continue
			}
			sent++
			if err := v.Announce(); err != nil {
				v.cfg.Log.Warn("gratuitous ARP failed", "vip", v.cfg.Address.Addr().String(), "err", err)
			}
		}
	}
}

// Close stops answering ARP and closes the sockets. It does not remove the
// address (a process that dies does not either): an address left behind is
// answered for by nobody.
func (v *VIP) Close() error {
	v.closeOnce.Do(func() {
		close(v.stop)
		<-v.done
		v.closeErr = errors.Join(v.nl.close(), v.arp.close())
	})
	return v.closeErr
}
