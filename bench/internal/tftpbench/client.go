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
	Timeout time.Duration
	Retries int
	buf     []byte
}

// Get fetches name and returns how many bytes it received.
func (c *Client) Get(name string) (int64, error) {
	if c.buf == nil {
		c.buf = make([]byte, 65536)
	}
	out := rrq(name, c.BlkSize)
	dst := c.Server
	var peer *net.UDPAddr
	blk, next, total := 512, uint16(1), int64(0)
	for {
		pkt, from, err := c.exchange(out, dst, peer)
		if err != nil {
			return total, err
		}
		if peer == nil {
			peer, dst = from, from
		}
		switch binary.BigEndian.Uint16(pkt) {
		case opOACK:
			if next != 1 {
				continue
			}
			if v, ok := options(pkt[2:])["blksize"]; ok {
				blk, _ = strconv.Atoi(v)
			}
			out = ack(0)
		case opDATA:
			if len(pkt) < 4 {
				return total, fmt.Errorf("%w: short DATA", ErrProtocol)
			}
			n := binary.BigEndian.Uint16(pkt[2:])
			if n != next {
				continue // a duplicate: the retransmission of our last packet covers it
			}
			total += int64(len(pkt) - 4)
			out = ack(n)
			next++
			if len(pkt)-4 < blk {
				_, err := c.Conn.WriteToUDP(out, dst)
				return total, err
			}
		case opERROR:
			return total, fmt.Errorf("%w: %q", ErrServer, bytes.TrimRight(pkt[4:], "\x00"))
		default:
			return total, fmt.Errorf("%w: opcode %d", ErrProtocol, binary.BigEndian.Uint16(pkt))
		}
	}
}

// exchange sends out to dst and waits for a packet from peer (or from the
// server's IP while the transfer port is still unknown), retransmitting on
// timeout.
func (c *Client) exchange(out []byte, dst, peer *net.UDPAddr) ([]byte, *net.UDPAddr, error) {
	for try := 0; try <= c.Retries; try++ {
		if _, err := c.Conn.WriteToUDP(out, dst); err != nil {
			return nil, nil, fmt.Errorf("tftpbench: send: %w", err)
		}
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

func rrq(name string, blksize int) []byte {
	b := []byte{0, opRRQ}
	b = append(append(b, name...), 0)
	b = append(b, "octet\x00"...)
	if blksize > 0 {
		b = append(b, "blksize\x00"+strconv.Itoa(blksize)+"\x00"...)
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
