package dhcp

import (
	"context"
	"log/slog"
	"net"
	"net/netip"

	"github.com/insomniacslk/dhcp/dhcpv4"
)

// pxeVendorOptions is option 43 for PXE clients: sub-option 6
// (PXE_DISCOVERY_CONTROL) = 8, "boot the file in this reply, no boot-server
// discovery", then End.
var pxeVendorOptions = [...]byte{6, 1, 8, 255}

const guidLen = 17 // option 97: type 0 and a 16-byte UUID

// newReply starts a reply to req: same xid, flags, chaddr and giaddr, with
// the relay agent information (82) and client identifier (61) echoed.
func newReply(st *state, req *dhcpv4.DHCPv4, mt dhcpv4.MessageType) *dhcpv4.DHCPv4 {
	r := &dhcpv4.DHCPv4{
		OpCode:        dhcpv4.OpcodeBootReply,
		HWType:        req.HWType,
		TransactionID: req.TransactionID,
		Flags:         req.Flags,
		ClientIPAddr:  net.IPv4zero,
		YourIPAddr:    net.IPv4zero,
		ServerIPAddr:  net.IPv4zero,
		GatewayIPAddr: req.GatewayIPAddr,
		ClientHWAddr:  req.ClientHWAddr,
		Options:       dhcpv4.Options{},
	}
	r.UpdateOption(dhcpv4.OptMessageType(mt))
	r.UpdateOption(dhcpv4.OptServerIdentifier(st.serverIP))
	for _, code := range []dhcpv4.OptionCode{dhcpv4.OptionRelayAgentInformation, dhcpv4.OptionClientIdentifier} {
		if v := req.Options.Get(code); v != nil {
			r.Options[code.Code()] = v
		}
	}
	return r
}

// leaseReply is an OFFER or ACK of ip with the subnet's options and, for a
// netboot client that may boot, its boot information.
func (s *Server) leaseReply(ctx context.Context, st *state, req *dhcpv4.DHCPv4, mt dhcpv4.MessageType, ip netip.Addr) *dhcpv4.DHCPv4 {
	c := &st.cfg
	r := newReply(st, req, mt)
	if ip.IsValid() {
		r.YourIPAddr = net.IP(ip.AsSlice())
		if req.MessageType() == dhcpv4.MessageTypeRequest {
			r.ClientIPAddr = req.ClientIPAddr
		}
		r.UpdateOption(dhcpv4.OptIPAddressLeaseTime(c.LeaseTime))
		r.UpdateOption(dhcpv4.OptRenewTimeValue(c.LeaseTime / 2))
		r.UpdateOption(dhcpv4.OptRebindingTimeValue(c.LeaseTime * 7 / 8))
	}
	r.UpdateOption(dhcpv4.OptSubnetMask(st.mask))
	if c.Router.IsValid() {
		r.UpdateOption(dhcpv4.OptRouter(net.IP(c.Router.AsSlice())))
	}
	if len(c.DNS) > 0 {
		r.UpdateOption(dhcpv4.OptDNS(ips(c.DNS)...))
	}
	if c.DomainName != "" {
		r.UpdateOption(dhcpv4.OptDomainName(c.DomainName))
	}
	if res, ok := st.resByMAC[string(req.ClientHWAddr)]; ok && res.Hostname != "" {
		r.UpdateOption(dhcpv4.OptHostName(res.Hostname))
	}
	if nb := detect(c, req); nb.kind != bootNone && s.booter.Bootable(ctx, req.ClientHWAddr) {
		addBoot(st, req, r, nb)
	}
	return r
}

// addBoot puts nb into r: siaddr and option 66 for TFTP, option 60, option
// 43 for PXE firmware, the boot file in the file field and option 67, and
// the client's GUID (97) echoed.
func addBoot(st *state, req, r *dhcpv4.DHCPv4, nb netboot) {
	r.ServerIPAddr = st.serverIP
	r.UpdateOption(dhcpv4.OptClassIdentifier(nb.class()))
	if nb.kind != bootHTTP {
		r.UpdateOption(dhcpv4.OptGeneric(dhcpv4.OptionVendorSpecificInformation, pxeVendorOptions[:]))
	}
	if nb.kind == bootTFTP {
		r.UpdateOption(dhcpv4.OptTFTPServerName(st.cfg.ServerIP.String()))
	}
	if len(nb.file) < 128 {
		r.BootFileName = nb.file
	}
	r.UpdateOption(dhcpv4.OptBootFileName(nb.file))
	if g := req.Options.Get(dhcpv4.OptionClientMachineIdentifier); len(g) == guidLen && g[0] == 0 {
		r.Options[dhcpv4.OptionClientMachineIdentifier.Code()] = g
	}
}

// nak refuses a REQUEST.
func (s *Server) nak(st *state, req *dhcpv4.DHCPv4) *dhcpv4.DHCPv4 {
	r := newReply(st, req, dhcpv4.MessageTypeNak)
	if !req.GatewayIPAddr.IsUnspecified() && req.GatewayIPAddr != nil {
		r.SetBroadcast()
	}
	r.UpdateOption(dhcpv4.OptMessage("requested address is not available"))
	return r
}

// handleProxy answers netboot clients with boot information only: an OFFER
// to a DISCOVER on port 67, an ACK to a REQUEST addressed to us on port 67 or
// made on port 4011. Everyone else gets nothing.
func (s *Server) handleProxy(ctx context.Context, st *state, req *dhcpv4.DHCPv4, port4011 bool) (*dhcpv4.DHCPv4, error) {
	var mt dhcpv4.MessageType
	switch req.MessageType() {
	case dhcpv4.MessageTypeDiscover:
		if port4011 {
			return nil, nil
		}
		mt = dhcpv4.MessageTypeOffer
	case dhcpv4.MessageTypeRequest:
		if sid := req.ServerIdentifier(); !port4011 && (sid == nil || !sid.Equal(st.serverIP)) {
			return nil, nil
		}
		mt = dhcpv4.MessageTypeAck
	default:
		return nil, nil
	}
	nb := detect(&st.cfg, req)
	if nb.kind == bootNone || !s.booter.Bootable(ctx, req.ClientHWAddr) {
		return nil, nil
	}
	r := newReply(st, req, mt)
	if mt == dhcpv4.MessageTypeAck {
		r.ClientIPAddr = req.ClientIPAddr
	}
	addBoot(st, req, r, nb)
	if mt == dhcpv4.MessageTypeOffer {
		s.stats.offers.Add(1)
	} else {
		s.stats.acks.Add(1)
	}
	s.logReq(ctx, slog.LevelDebug, "proxy boot reply", req, "arch", int(nb.arch), "bootfile", nb.file)
	return r, nil
}

func ips(as []netip.Addr) []net.IP {
	out := make([]net.IP, len(as))
	for i, a := range as {
		out[i] = net.IP(a.AsSlice())
	}
	return out
}
