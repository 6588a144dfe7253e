package dhcp

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"time"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/insomniacslk/dhcp/iana"
)

// handle computes the reply to req, or nil when none is due. port4011 says
// the request arrived on the PXE boot-server port. An error means the
// request was dropped, and why.
func (s *Server) handle(ctx context.Context, req *dhcpv4.DHCPv4, port4011 bool) (*dhcpv4.DHCPv4, error) {
	if err := checkRequest(req); err != nil {
		return nil, err
	}
	st := s.st.Load()
	if st.cfg.Mode == ModeProxy || port4011 {
		return s.handleProxy(ctx, st, req, port4011)
	}
	if gi, ok := netip.AddrFromSlice(req.GatewayIPAddr.To4()); ok && !gi.IsUnspecified() && !st.cfg.Subnet.Contains(gi) {
		return nil, fmt.Errorf("%w: giaddr %v, subnet %v", ErrRelay, gi, st.cfg.Subnet)
	}
	switch req.MessageType() {
	case dhcpv4.MessageTypeDiscover:
		return s.discover(ctx, st, req)
	case dhcpv4.MessageTypeRequest:
		return s.request(ctx, st, req)
	case dhcpv4.MessageTypeRelease:
		return nil, s.release(ctx, st, req)
	case dhcpv4.MessageTypeDecline:
		return nil, s.decline(ctx, st, req)
	case dhcpv4.MessageTypeInform:
		return s.inform(ctx, st, req), nil
	}
	return nil, nil
}

// checkRequest rejects what no DHCP client sends.
func checkRequest(req *dhcpv4.DHCPv4) error {
	switch {
	case req.OpCode != dhcpv4.OpcodeBootRequest:
		return fmt.Errorf("%w: opcode %v", ErrMalformed, req.OpCode)
	case req.HWType != iana.HWTypeEthernet || len(req.ClientHWAddr) != 6:
		return fmt.Errorf("%w: hardware type %v with %d-byte address", ErrMalformed, req.HWType, len(req.ClientHWAddr))
	case req.MessageType() == dhcpv4.MessageTypeNone:
		return fmt.Errorf("%w: no message type", ErrMalformed)
	}
	return nil
}

// discover offers the client's address: its reservation, its previous
// lease, the address it asks for, the address already offered to it, or
// the next free one.
func (s *Server) discover(ctx context.Context, st *state, req *dhcpv4.DHCPv4) (*dhcpv4.DHCPv4, error) {
	mac := req.ClientHWAddr
	now := s.now()
	ip, ok := s.pick(st, req, now)
	if !ok {
		return nil, fmt.Errorf("%w for %v: no offer", ErrExhausted, mac)
	}
	s.stats.offers.Add(1)
	return s.leaseReply(ctx, st, req, dhcpv4.MessageTypeOffer, ip), nil
}

func (s *Server) pick(st *state, req *dhcpv4.DHCPv4, now time.Time) (netip.Addr, bool) {
	mac := req.ClientHWAddr
	if r, ok := st.resByMAC[string(mac)]; ok {
		s.claim(st, r.IP, mac, now, offerHold)
		return r.IP, true
	}
	if l, ok := s.leases.ByMAC(mac); ok && inRanges(st.cfg.Ranges, l.IP) && s.claim(st, l.IP, mac, now, offerHold) {
		return l.IP, true
	}
	if want, ok := netip.AddrFromSlice(req.RequestedIPAddress().To4()); ok && inRanges(st.cfg.Ranges, want) && s.claim(st, want, mac, now, offerHold) {
		return want, true
	}
	if ip, ok := s.heldFor(mac, now); ok && inRanges(st.cfg.Ranges, ip) && s.claim(st, ip, mac, now, offerHold) {
		return ip, true // a retransmitted DISCOVER: the same offer again
	}
	return s.allocate(st, mac, now, offerHold)
}

// request ACKs or NAKs a client in SELECTING, INIT-REBOOT, RENEWING or
// REBINDING state.
func (s *Server) request(ctx context.Context, st *state, req *dhcpv4.DHCPv4) (*dhcpv4.DHCPv4, error) {
	if sid := req.ServerIdentifier(); sid != nil && !sid.Equal(st.serverIP) {
		return nil, nil // the client chose another server
	}
	want, ok := netip.AddrFromSlice(req.RequestedIPAddress().To4())
	if !ok || want.IsUnspecified() {
		want, ok = netip.AddrFromSlice(req.ClientIPAddr.To4())
	}
	if !ok || want.IsUnspecified() {
		return nil, fmt.Errorf("%w: REQUEST names no address", ErrMalformed)
	}
	if !s.grantable(st, want, req.ClientHWAddr) {
		s.stats.naks.Add(1)
		s.logReq(ctx, slog.LevelInfo, "NAK", req, "requested", want.String())
		return s.nak(st, req), nil
	}
	l := Lease{IP: want, MAC: req.ClientHWAddr, Expires: s.now().Add(st.cfg.LeaseTime)}
	if r, ok := st.resByMAC[string(req.ClientHWAddr)]; ok {
		l.Hostname = r.Hostname
	}
	err := s.leases.Commit(ctx, l)
	s.unhold(want, req.ClientHWAddr)
	if err != nil {
		return nil, fmt.Errorf("dhcp: commit lease %v: %w", want, err)
	}
	s.stats.acks.Add(1)
	return s.leaseReply(ctx, st, req, dhcpv4.MessageTypeAck, want), nil
}

// grantable reports whether the client may have ip, and holds it for the
// client while its lease is committed.
func (s *Server) grantable(st *state, ip netip.Addr, mac net.HardwareAddr) bool {
	if r, ok := st.resByMAC[string(mac)]; ok {
		return r.IP == ip
	}
	return inRanges(st.cfg.Ranges, ip) && s.claim(st, ip, mac, s.now(), offerHold)
}

// release forgets the client's lease on ciaddr.
func (s *Server) release(ctx context.Context, st *state, req *dhcpv4.DHCPv4) error {
	ip, ok := netip.AddrFromSlice(req.ClientIPAddr.To4())
	if !ok {
		return nil
	}
	l, ok := s.leases.ByIP(ip)
	if !ok || string(l.MAC) != string(req.ClientHWAddr) {
		return nil
	}
	if err := s.leases.Release(ctx, ip); err != nil {
		return fmt.Errorf("dhcp: release %v: %w", ip, err)
	}
	s.freed()
	s.stats.releases.Add(1)
	s.logReq(ctx, slog.LevelInfo, "lease released", req, "ip", ip.String())
	return nil
}

// decline marks the address the client found in use as unusable for
// DeclineTime.
func (s *Server) decline(ctx context.Context, st *state, req *dhcpv4.DHCPv4) error {
	ip, ok := netip.AddrFromSlice(req.RequestedIPAddress().To4())
	if !ok {
		return fmt.Errorf("%w: DECLINE names no address", ErrMalformed)
	}
	l, ok := s.leases.ByIP(ip)
	if !ok || string(l.MAC) != string(req.ClientHWAddr) {
		return nil
	}
	bad := Lease{IP: ip, Expires: s.now().Add(st.cfg.DeclineTime)}
	if err := s.leases.Commit(ctx, bad); err != nil {
		return fmt.Errorf("dhcp: decline %v: %w", ip, err)
	}
	s.stats.declines.Add(1)
	s.logReq(ctx, slog.LevelWarn, "address declined by client, blocked", req, "ip", ip.String(), "for", st.cfg.DeclineTime.String())
	return nil
}

// inform answers a client that has an address and wants options only.
func (s *Server) inform(ctx context.Context, st *state, req *dhcpv4.DHCPv4) *dhcpv4.DHCPv4 {
	r := s.leaseReply(ctx, st, req, dhcpv4.MessageTypeAck, netip.Addr{})
	r.ClientIPAddr = req.ClientIPAddr
	r.Options.Del(dhcpv4.OptionIPAddressLeaseTime)
	r.Options.Del(dhcpv4.OptionRenewTimeValue)
	r.Options.Del(dhcpv4.OptionRebindingTimeValue)
	s.stats.acks.Add(1)
	return r
}
