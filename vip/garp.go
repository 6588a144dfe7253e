package vip

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"

	"golang.org/x/sys/unix"
)

// ARP operations.
const (
	opRequest = 1
	opReply   = 2
)

var ethBroadcast = net.HardwareAddr{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}

// garpFrame is an Ethernet broadcast frame carrying a gratuitous ARP for ip
// at mac. The request form leaves the target hardware address zero (RFC
// 5227's announcement); the reply form sets it to mac, which Linux requires
// of a gratuitous reply.
func garpFrame(op uint16, mac net.HardwareAddr, ip netip.Addr) []byte {
	b := make([]byte, 0, 42)
	b = append(b, ethBroadcast...)
	b = append(b, mac...)
	b = binary.BigEndian.AppendUint16(b, unix.ETH_P_ARP)
	b = binary.BigEndian.AppendUint16(b, 1) // Ethernet
	b = binary.BigEndian.AppendUint16(b, unix.ETH_P_IP)
	b = append(b, 6, 4)
	b = binary.BigEndian.AppendUint16(b, op)
	a := ip.As4()
	b = append(b, mac...)
	b = append(b, a[:]...)
	if op == opReply {
		b = append(b, mac...)
	} else {
		b = append(b, make([]byte, 6)...)
	}
	return append(b, a[:]...)
}

// arpRequest is what answering an ARP request needs of it.
type arpRequest struct {
	sha      net.HardwareAddr
	spa, tpa netip.Addr
}

// parseARPRequest reads an Ethernet frame holding an ARP request for IPv4
// over Ethernet; ok is false for anything else.
func parseARPRequest(frame []byte) (arpRequest, bool) {
	if len(frame) < 42 || binary.BigEndian.Uint16(frame[12:]) != unix.ETH_P_ARP {
		return arpRequest{}, false
	}
	a := frame[14:]
	if binary.BigEndian.Uint16(a[0:]) != 1 || binary.BigEndian.Uint16(a[2:]) != unix.ETH_P_IP ||
		a[4] != 6 || a[5] != 4 || binary.BigEndian.Uint16(a[6:]) != opRequest {
		return arpRequest{}, false
	}
	return arpRequest{
		sha: net.HardwareAddr(append([]byte(nil), a[8:14]...)),
		spa: netip.AddrFrom4([4]byte(a[14:18])),
		tpa: netip.AddrFrom4([4]byte(a[24:28])),
	}, true
}

// replyFrame answers req: ip is at mac.
func replyFrame(req arpRequest, mac net.HardwareAddr, ip netip.Addr) []byte {
	b := make([]byte, 0, 42)
	b = append(b, req.sha...)
	b = append(b, mac...)
	b = binary.BigEndian.AppendUint16(b, unix.ETH_P_ARP)
	b = binary.BigEndian.AppendUint16(b, 1)
	b = binary.BigEndian.AppendUint16(b, unix.ETH_P_IP)
	b = append(b, 6, 4)
	b = binary.BigEndian.AppendUint16(b, opReply)
	a, t := ip.As4(), req.spa.As4()
	b = append(b, mac...)
	b = append(b, a[:]...)
	b = append(b, req.sha...)
	return append(b, t[:]...)
}

// arpConn is an AF_PACKET socket bound to one interface: it sends whole
// Ethernet frames and receives the ARP frames arriving there.
type arpConn struct {
	fd    int
	index int
}

func openARP(index int) (*arpConn, error) {
	fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, int(htons(unix.ETH_P_ARP)))
	if err != nil {
		return nil, fmt.Errorf("%w: packet socket: %w", ErrARP, err)
	}
	if err := unix.Bind(fd, &unix.SockaddrLinklayer{Protocol: htons(unix.ETH_P_ARP), Ifindex: index}); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("%w: bind: %w", ErrARP, err)
	}
	// Reads wake up this often to see whether the VIP was closed.
	tv := unix.Timeval{Usec: 200_000}
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("%w: SO_RCVTIMEO: %w", ErrARP, err)
	}
	return &arpConn{fd: fd, index: index}, nil
}

func (c *arpConn) send(frame []byte) error {
	to := &unix.SockaddrLinklayer{
		Protocol: htons(unix.ETH_P_ARP),
		Ifindex:  c.index,
		Halen:    6,
	}
	copy(to.Addr[:], frame[:6])
	return unix.Sendto(c.fd, frame, 0, to)
}

// receive reads one incoming frame into buf; ok is false on a timeout, and
// for frames this host sent.
func (c *arpConn) receive(buf []byte) (n int, ok bool, err error) {
	n, from, err := unix.Recvfrom(c.fd, buf, 0)
	if err != nil {
		if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINTR) {
			return 0, false, nil
		}
		return 0, false, err
	}
	if ll, isLL := from.(*unix.SockaddrLinklayer); isLL && ll.Pkttype == unix.PACKET_OUTGOING {
		return 0, false, nil
	}
	return n, true, nil
}

func (c *arpConn) close() error { return unix.Close(c.fd) }

// htons converts a 16-bit value to network byte order.
func htons(v uint16) uint16 {
	var b [2]byte
	binary.BigEndian.PutUint16(b[:], v)
	return binary.NativeEndian.Uint16(b[:])
}
