package tftpbench

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"
)

// Sentinel errors of the client.
var (
	ErrTimeout  = errors.New("tftpbench: server stopped answering")
	ErrServer   = errors.New("tftpbench: server sent an error packet")
	ErrProtocol = errors.New("tftpbench: unexpected packet")
)

const (
	opRRQ   = 1
	opDATA  = 3
	opACK   = 4
	opERROR = 5
	opOACK  = 6
)

// Client fetches files over one UDP socket, one transfer at a time.
type Client struct {
	Conn    *net.UDPConn
	Server  *net.UDPAddr // address of the server's port 69
	BlkSize int          // requested block size (RFC 2348); 0 for plain 512
	// WindowSize, when above 1, asks for RFC 7440 windows: the server sends
	// that many blocks per ACK if it agrees (tftpd-hpa 5.2 does not and
	// stays lock-step).
	WindowSize int
	Timeout    time.Duration
	Retries    int
	buf        []byte
}

// transfer is the state of one Get.
type transfer struct {
	blk, window, inWindow int
	next                  uint16 // the block expected next
	total                 int64
}

// Get fetches name and returns how many bytes it received.
func (c *Client) Get(name string) (int64, error) {
	if c.buf == nil {
		c.buf = make([]byte, 65536)
	}
	out := rrq(name, c.BlkSize, c.WindowSize)
	resend, dst := out, c.Server
	var peer *net.UDPAddr
	t := transfer{blk: 512, window: 1, next: 1}
	for {
		pkt, from, err := c.exchange(out, resend, dst, peer)
		if err != nil {
			return t.total, err
		}
		out = nil
		if peer == nil {
			peer, dst = from, from
		}
		switch binary.BigEndian.Uint16(pkt) {
		case opOACK:
			if t.next != 1 {
				continue
			}
			opts := options(pkt[2:])
			if v, ok := opts["blksize"]; ok {
				t.blk, _ = strconv.Atoi(v)
			}
			if v, ok := opts["windowsize"]; ok {
				t.window, _ = strconv.Atoi(v)
			}
			out = ack(0)
		case opDATA:
			if len(pkt) < 4 {
				return t.total, fmt.Errorf("%w: short DATA", ErrProtocol)
			}
			a, done := t.data(binary.BigEndian.Uint16(pkt[2:]), len(pkt)-4)
			if done {
				_, err := c.Conn.WriteToUDP(a, dst)
				return t.total, err
			}
			out = a
		case opERROR:
			return t.total, fmt.Errorf("%w: %q", ErrServer, bytes.TrimRight(pkt[4:], "\x00"))
		default:
			return t.total, fmt.Errorf("%w: opcode %d", ErrProtocol, binary.BigEndian.Uint16(pkt))
		}
		if out != nil {
			resend = out
		}
	}
}

// data takes DATA block n of size bytes. It returns the ACK to send (nil
// while a window is still arriving) and whether this was the last block.
func (t *transfer) data(n uint16, size int) ([]byte, bool) {
	switch {
	case n == t.next:
	case n == t.next-1:
		return nil, false // a duplicate: the retransmission timer covers it
	default:
		t.inWindow = 0 // a gap: ACK what arrived in order, the server resumes there
		return ack(t.next - 1), false
	}
	t.total += int64(size)
	t.next++
	t.inWindow++
	if size < t.blk {
		return ack(n), true
	}
	if t.inWindow >= t.window {
		t.inWindow = 0
		return ack(n), false
	}
	return nil, false
}

// exchange sends out (if any) to dst and waits for a packet from peer (or
// from the server's IP while the transfer port is still unknown), sending
// resend whenever Timeout passes without one.
func (c *Client) exchange(out, resend []byte, dst, peer *net.UDPAddr) ([]byte, *net.UDPAddr, error) {
	for try := 0; try <= c.Retries; try++ {
		if out != nil {
			if _, err := c.Conn.WriteToUDP(out, dst); err != nil {
				return nil, nil, fmt.Errorf("tftpbench: send: %w", err)
			}
		}
		out = resend
		deadline := time.Now().Add(c.Timeout)
		for {
			_ = c.Conn.SetReadDeadline(deadline)
			n, from, err := c.Conn.ReadFromUDP(c.buf)
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				break
			}
			if err != nil {
				return nil, nil, fmt.Errorf("tftpbench: receive: %w", err)
			}
			if n < 4 || !from.IP.Equal(c.Server.IP) || (peer != nil && from.Port != peer.Port) {
				continue
			}
			return c.buf[:n], from, nil
		}
	}
	return nil, nil, ErrTimeout
}

func rrq(name string, blksize, window int) []byte {
	b := []byte{0, opRRQ}
	b = append(append(b, name...), 0)
	b = append(b, "octet\x00"...)
	if blksize > 0 {
		b = append(b, "blksize\x00"+strconv.Itoa(blksize)+"\x00"...)
	}
	if window > 1 {
		b = append(b, "windowsize\x00"+strconv.Itoa(window)+"\x00"...)
	}
	return append(b, "tsize\x000\x00"...)
}

func ack(n uint16) []byte {
	return []byte{0, opACK, byte(n >> 8), byte(n)}
}

func options(b []byte) map[string]string {
	m := map[string]string{}
	parts := bytes.Split(bytes.TrimRight(b, "\x00"), []byte{0})
	for i := 0; i+1 < len(parts); i += 2 {
		m[string(bytes.ToLower(parts[i]))] = string(parts[i+1])
	}
	return m
}
