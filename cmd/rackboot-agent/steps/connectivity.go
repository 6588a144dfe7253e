package steps

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"time"

	"github.com/rackboot/rackboot/engine/models"
)

// MaxConnectivityTargets bounds the addresses one connectivity check probes.
const MaxConnectivityTargets = 1024

// target is one remote address of one remote NIC.
type target struct {
	host    int // index into the report's RemoteHosts
	addr    netip.Addr
	mac     string // the NIC's MAC as the service knows it, lower case
	nic     string // outgoing interface
	local   netip.Addr
	mtu     int
	reach   *probe
	mtuTest *probe
}

// connectivity runs connectivity-check: args[0] is a ConnectivityCheckParams
// (the other hosts and their NICs' addresses, plain or CIDR). For every
// address it reports L3 (ICMP echo: loss and average RTT), for IPv4 also
// L2 (the ARP entry the echo left: remote MAC, and whether it is the NIC's
// MAC), and an MTU report (one echo filling the outgoing interface's MTU
// with don't-fragment set). Sockets and route look-ups happen on the
// calling goroutine, so the check runs in the caller's network namespace.
func (d Deps) connectivity(ctx context.Context, args []string) (string, error) {
	report, targets, err := parseConnectivityArgs(args)
	if err != nil {
		return "", err
	}
	if len(targets) > 0 {
		if err := d.probe(ctx, targets); err != nil {
			return "", err
		}
	}
	d.fill(report.RemoteHosts, targets)
	return marshal(report)
}

// parseConnectivityArgs decodes and checks the step's argument and
// returns the empty report and the addresses to probe.
func parseConnectivityArgs(args []string) (*models.ConnectivityReport, []*target, error) {
	var params models.ConnectivityCheckParams
	if err := oneJSONArg("connectivity-check", args, &params); err != nil {
		return nil, nil, err
	}
	report := &models.ConnectivityReport{RemoteHosts: []*models.ConnectivityRemoteHost{}}
	var targets []*target
	for _, h := range params {
		if h == nil {
			return nil, nil, fmt.Errorf("%w: connectivity-check: null host", ErrArgs)
		}
		report.RemoteHosts = append(report.RemoteHosts, &models.ConnectivityRemoteHost{
			HostID: h.HostID, L2Connectivity: []*models.L2Connectivity{},
			L3Connectivity: []*models.L3Connectivity{}, MtuReport: []*models.MtuReport{},
		})
		ts, err := hostTargets(len(report.RemoteHosts)-1, h)
		if err != nil {
			return nil, nil, err
		}
		targets = append(targets, ts...)
		if len(targets) > MaxConnectivityTargets {
			return nil, nil, fmt.Errorf("%w: connectivity-check: more than %d addresses", ErrArgs, MaxConnectivityTargets)
		}
	}
	return report, targets, nil
}

func hostTargets(idx int, h *models.ConnectivityCheckHost) ([]*target, error) {
	var out []*target
	for _, nic := range h.Nics {
		if nic == nil {
			continue
		}
		for _, s := range nic.IPAddresses {
			a, err := parseAddr(s)
			if err != nil {
				return nil, err
			}
			out = append(out, &target{host: idx, addr: a, mac: strings.ToLower(nic.Mac)})
		}
	}
	return out, nil
}

// parseAddr accepts "10.0.0.5" or "10.0.0.5/24" (upstream sends CIDRs).
func parseAddr(s string) (netip.Addr, error) {
	if p, err := netip.ParsePrefix(s); err == nil {
		return p.Addr().Unmap(), nil
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("%w: connectivity-check: %q is not an IP address", ErrArgs, s)
	}
	return a.Unmap(), nil
}

func (d Deps) probe(ctx context.Context, targets []*target) error {
	for _, t := range targets {
		t.nic, t.local, t.mtu = route(t.addr)
		t.reach = &probe{addr: t.addr, payload: 56, sentAt: map[int]time.Time{}}
	}
	p, err := openPinger(false)
	if err != nil {
		return err
	}
	reach := make([]*probe, len(targets))
	for i, t := range targets {
		reach[i] = t.reach
	}
	rounds, wait := d.PingRounds, d.PingWait
	if rounds <= 0 {
		rounds = 3
	}
	if wait <= 0 {
		wait = time.Second
	}
	p.run(ctx, reach, rounds, wait)
	p.close()
	var mtuProbes []*probe
	for _, t := range targets {
		if t.reach.received > 0 && t.mtu > 0 {
			t.mtuTest = &probe{addr: t.addr, payload: mtuPayload(t.addr, t.mtu), sentAt: map[int]time.Time{}}
			mtuProbes = append(mtuProbes, t.mtuTest)
		}
	}
	if len(mtuProbes) == 0 {
		return nil
	}
	df, err := openPinger(true)
	if err != nil {
		return nil // without raw sockets there is no MTU report
	}
	df.run(ctx, mtuProbes, 1, wait)
	df.close()
	return nil
}

// mtuPayload is the echo payload that makes an IP packet of exactly mtu
// bytes (capped at the largest IP packet).
func mtuPayload(a netip.Addr, mtu int) int {
	header := 20 + 8
	limit := 65535 - 8 - 20
	if a.Is6() {
		header = 40 + 8
		limit = 65535 - 8
	}
	return max(0, min(mtu-header, limit))
}

// route finds the interface, source address and MTU the kernel would use
// to reach a, by connecting a UDP socket (nothing is sent).
func route(a netip.Addr) (string, netip.Addr, int) {
	conn, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(netip.AddrPortFrom(a, 9)))
	if err != nil {
		return "", netip.Addr{}, 0
	}
	local := conn.LocalAddr().(*net.UDPAddr).AddrPort().Addr().Unmap()
	conn.Close()
	ifs, err := net.Interfaces()
	if err != nil {
		return "", local, 0
	}
	for _, ifc := range ifs {
		addrs, err := ifc.Addrs()
		if err != nil {
			continue
		}
		for _, ad := range addrs {
			if n, ok := ad.(*net.IPNet); ok {
				if ip, ok := netip.AddrFromSlice(n.IP); ok && ip.Unmap() == local.WithZone("") {
					return ifc.Name, local, ifc.MTU
				}
			}
		}
	}
	return "", local, 0
}

// fill turns probe results into the report.
func (d Deps) fill(hosts []*models.ConnectivityRemoteHost, targets []*target) {
	neigh, _ := d.neighbors() // no ARP table: no L2 success, nothing else changes
	for _, t := range targets {
		h := hosts[t.host]
		l3 := &models.L3Connectivity{OutgoingNic: t.nic, RemoteIPAddress: t.addr.String(), Successful: t.reach.received > 0}
		if t.reach.sent > 0 {
			l3.PacketLossPercentage = float64(t.reach.sent-t.reach.received) * 100 / float64(t.reach.sent)
		}
		if t.reach.received > 0 {
			l3.AverageRTTMs = float64(t.reach.rttSum.Microseconds()) / 1000 / float64(t.reach.received)
		}
		h.L3Connectivity = append(h.L3Connectivity, l3)
		if t.addr.Is4() {
			h.L2Connectivity = append(h.L2Connectivity, l2(t, neigh))
		}
		if t.mtuTest != nil {
			h.MtuReport = append(h.MtuReport, &models.MtuReport{
				OutgoingNic: t.nic, RemoteIPAddress: t.addr.String(), MtuSuccessful: t.mtuTest.received > 0,
			})
		}
	}
}

func l2(t *target, neigh []Neighbor) *models.L2Connectivity {
	out := &models.L2Connectivity{OutgoingNic: t.nic, RemoteIPAddress: t.addr.String()}
	if t.local.IsValid() {
		out.OutgoingIPAddress = t.local.String()
	}
	for _, n := range neigh {
		if n.IP == t.addr {
			out.RemoteMac = n.MAC
			out.OutgoingNic = n.Device
			out.Successful = t.mac == "" || t.mac == n.MAC
			break
		}
	}
	return out
}
