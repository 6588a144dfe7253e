package vip

import (
	"encoding/binary"
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

// arpConn is an AF_PACKET socket that sends whole Ethernet frames out of
// one interface. Its protocol is 0, so it receives nothing.
type arpConn struct {
	fd    int
	index int
}

func openARP(index int) (*arpConn, error) {
	fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("%w: packet socket: %w", ErrARP, err)
	}
	return &arpConn{fd: fd, index: index}, nil
}

func (c *arpConn) send(frame []byte) error {
	to := &unix.SockaddrLinklayer{
		Protocol: htons(unix.ETH_P_ARP),
		Ifindex:  c.index,
		Halen:    6,
	}
	copy(to.Addr[:], ethBroadcast)
	return unix.Sendto(c.fd, frame, 0, to)
}

func (c *arpConn) close() error { return unix.Close(c.fd) }

// htons converts a 16-bit value to network byte order.
func htons(v uint16) uint16 {
	var b [2]byte
	binary.BigEndian.PutUint16(b[:], v)
	return binary.NativeEndian.Uint16(b[:])
}
