package vip

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"syscall"

	"golang.org/x/sys/unix"
)

// netlinkConn is a NETLINK_ROUTE socket sending one request at a time and
// waiting for its acknowledgement.
type netlinkConn struct {
	fd  int
	seq uint32
}

func openNetlink() (*netlinkConn, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
	if err != nil {
		return nil, fmt.Errorf("%w: socket: %w", ErrNetlink, err)
	}
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("%w: bind: %w", ErrNetlink, err)
	}
	// A reply that never comes must not hang the caller forever.
	tv := unix.Timeval{Sec: 5}
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("%w: SO_RCVTIMEO: %w", ErrNetlink, err)
	}
	return &netlinkConn{fd: fd}, nil
}

func (c *netlinkConn) close() error { return unix.Close(c.fd) }

// addAddr adds p to interface index. added is false when the address was
// already there.
func (c *netlinkConn) addAddr(index int, p netip.Prefix) (added bool, err error) {
	err = c.request(unix.RTM_NEWADDR, unix.NLM_F_CREATE|unix.NLM_F_EXCL, addrMessage(index, p))
	if errors.Is(err, unix.EEXIST) {
		return false, nil
	}
	return err == nil, err
}

// delAddr removes p from interface index. removed is false when it was not
// there.
func (c *netlinkConn) delAddr(index int, p netip.Prefix) (removed bool, err error) {
	err = c.request(unix.RTM_DELADDR, 0, addrMessage(index, p))
	if errors.Is(err, unix.EADDRNOTAVAIL) {
		return false, nil
	}
	return err == nil, err
}

// addrMessage is an ifaddrmsg for p on interface index with its IFA_LOCAL
// and IFA_ADDRESS attributes, as `ip addr add` sends.
func addrMessage(index int, p netip.Prefix) []byte {
	b := make([]byte, unix.SizeofIfAddrmsg, unix.SizeofIfAddrmsg+16)
	b[0] = unix.AF_INET
	b[1] = byte(p.Bits())
	b[3] = unix.RT_SCOPE_UNIVERSE
	binary.NativeEndian.PutUint32(b[4:], uint32(index))
	a := p.Addr().As4()
	b = appendAttr(b, unix.IFA_LOCAL, a[:])
	return appendAttr(b, unix.IFA_ADDRESS, a[:])
}

// appendAttr appends a route attribute, padded to 4 bytes.
func appendAttr(b []byte, typ uint16, data []byte) []byte {
	n := unix.SizeofRtAttr + len(data)
	b = binary.NativeEndian.AppendUint16(b, uint16(n))
	b = binary.NativeEndian.AppendUint16(b, typ)
	b = append(b, data...)
	for n%4 != 0 {
		b = append(b, 0)
		n++
	}
	return b
}

// request sends one message with NLM_F_ACK and returns the kernel's answer
// to it: nil, or the errno it reported.
func (c *netlinkConn) request(typ, flags uint16, body []byte) error {
	c.seq++
	msg := make([]byte, 0, unix.NLMSG_HDRLEN+len(body))
	msg = binary.NativeEndian.AppendUint32(msg, uint32(unix.NLMSG_HDRLEN+len(body)))
	msg = binary.NativeEndian.AppendUint16(msg, typ)
	msg = binary.NativeEndian.AppendUint16(msg, flags|unix.NLM_F_REQUEST|unix.NLM_F_ACK)
	msg = binary.NativeEndian.AppendUint32(msg, c.seq)
	msg = binary.NativeEndian.AppendUint32(msg, 0)
	msg = append(msg, body...)
	if err := unix.Sendto(c.fd, msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return fmt.Errorf("%w: send: %w", ErrNetlink, err)
	}
	return c.ack(c.seq)
}

// ack reads until the acknowledgement of seq arrives.
func (c *netlinkConn) ack(seq uint32) error {
	buf := make([]byte, 8192)
	for {
		n, _, err := unix.Recvfrom(c.fd, buf, 0)
		if err != nil {
			return fmt.Errorf("%w: receive: %w", ErrNetlink, err)
		}
		msgs, err := syscall.ParseNetlinkMessage(buf[:n])
		if err != nil {
			return fmt.Errorf("%w: %w", ErrNetlink, err)
		}
		for _, m := range msgs {
			if m.Header.Seq != seq || m.Header.Type != unix.NLMSG_ERROR {
				continue
			}
			if len(m.Data) < 4 {
				return fmt.Errorf("%w: short error message", ErrNetlink)
			}
			if errno := -int32(binary.NativeEndian.Uint32(m.Data)); errno != 0 {
				return fmt.Errorf("%w: %w", ErrNetlink, unix.Errno(errno))
			}
			return nil
		}
	}
}
