package topo

import (
	"context"
	"errors"
	"fmt"

	"github.com/rackboot/rackboot/testbed/netns"
)

// ErrTopology is returned when the namespaces or the veth pair cannot be built.
var ErrTopology = errors.New("topo: cannot build benchmark topology")

// Fixed addresses of the pair. The subnet is a /16 so that DHCP ranges are
// large enough for tens of thousands of simulated clients.
const (
	Subnet   = "10.98.0.0/16"
	ServerIP = "10.98.0.1"
	ClientIP = "10.98.0.2"
	ServerIf = "bsrv0"
	ClientIf = "bcli0"
	// RangeStart and RangeEnd bound the DHCP pool every server is given.
	RangeStart = "10.98.1.0"
	RangeEnd   = "10.98.255.254"
	Netmask    = "255.255.0.0"
)

// Pair is a server namespace and a client namespace joined by a veth pair.
type Pair struct {
	Server *netns.NS
	Client *netns.NS
}

// New builds the pair. Close it when done.
func New(ctx context.Context, prefix string) (*Pair, error) {
	srv, err := netns.New(ctx, prefix+"s")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTopology, err)
	}
	cli, err := netns.New(ctx, prefix+"c")
	if err != nil {
		srv.Close()
		return nil, fmt.Errorf("%w: %w", ErrTopology, err)
	}
	p := &Pair{Server: srv, Client: cli}
	if err := p.link(ctx); err != nil {
		p.Close()
		return nil, fmt.Errorf("%w: %w", ErrTopology, err)
	}
	return p, nil
}

func (p *Pair) link(ctx context.Context) error {
	steps := []struct {
		ns   *netns.NS
		args []string
	}{
		{p.Server, []string{"link", "add", ServerIf, "type", "veth", "peer", "name", ClientIf, "netns", p.Client.Name}},
		{p.Server, []string{"addr", "add", ServerIP + "/16", "dev", ServerIf}},
		{p.Client, []string{"addr", "add", ClientIP + "/16", "dev", ClientIf}},
		{p.Server, []string{"link", "set", ServerIf, "up"}},
		{p.Client, []string{"link", "set", ClientIf, "up"}},
	}
	for _, s := range steps {
		if err := s.ns.IP(ctx, s.args...); err != nil {
			return err
		}
	}
	return nil
}

// Close deletes both namespaces (and with them the veth pair).
func (p *Pair) Close() error {
	return errors.Join(p.Client.Close(), p.Server.Close())
}
