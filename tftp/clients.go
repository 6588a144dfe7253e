package tftp

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
)

// errDuplicate is a read request that repeats one whose transfer is still
// running (same client address and port, same file): a client resending
// its RRQ because the first DATA was slow. The running transfer answers
// it, as dnsmasq does.
var errDuplicate = errors.New("tftp: duplicate request for a transfer in progress")

// transferKey names a transfer: the client's address and port (its TID)
// and the file.
type transferKey struct {
	client netip.AddrPort
	path   string
}

// clients counts the transfers in progress per client address, so that
// one client — a flood, or a firmware resending requests — takes at most
// its share of the server's transfer slots and cannot keep other PXE
// clients out.
type clients struct {
	mu      sync.Mutex
	max     int
	perAddr map[netip.Addr]int
	running map[transferKey]struct{}
}

func newClients(max int) *clients {
	return &clients{max: max, perAddr: map[netip.Addr]int{}, running: map[transferKey]struct{}{}}
}

// acquire records a transfer of path to client: errDuplicate when the same
// transfer runs, ErrBusy when the client has max transfers running.
func (c *clients) acquire(client netip.AddrPort, path string) error {
	k := transferKey{clientKey(client), path}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.running[k]; ok {
		return errDuplicate
	}
	if c.perAddr[k.client.Addr()] >= c.max {
		return fmt.Errorf("%w: %d transfers already running for %s", ErrBusy, c.max, k.client.Addr())
	}
	c.running[k] = struct{}{}
	c.perAddr[k.client.Addr()]++
	return nil
}

// release forgets a transfer acquire recorded.
func (c *clients) release(client netip.AddrPort, path string) {
	k := transferKey{clientKey(client), path}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.running[k]; !ok {
		return
	}
	delete(c.running, k)
	if n := c.perAddr[k.client.Addr()] - 1; n > 0 {
		c.perAddr[k.client.Addr()] = n
	} else {
		delete(c.perAddr, k.client.Addr())
	}
}

// clientKey unmaps IPv4-mapped IPv6 addresses, so that a client is one key
// whichever socket family saw it.
func clientKey(ap netip.AddrPort) netip.AddrPort {
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
}

// addrPort converts a UDP address (nil: the zero AddrPort).
func addrPort(a *net.UDPAddr) netip.AddrPort {
	if a == nil {
		return netip.AddrPort{}
	}
	return a.AddrPort()
}
