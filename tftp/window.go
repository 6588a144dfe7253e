package tftp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// This file is the RFC 7440 (windowsize) sender that pin/tftp v3.2.0 lacks.
// A window of blocks is sent, then the sender waits for one ACK: the ACK of
// the window's last block slides the window; the ACK of an earlier block
// means the client lost the one after it, and the window restarts there.

var (
	errNoAck       = errors.New("no acknowledgement")
	errClientAbort = errors.New("client ended the transfer")
	errProbe       = errors.New("client ended the transfer after the OACK")
	errResend      = errors.New("resend")
)

// transfer is one windowed read transfer, on its own socket (its TID).
type transfer struct {
	conn    *net.UDPConn
	peer    *net.UDPAddr
	timeout time.Duration
	retries int
	recv    []byte
}

// serveWindowed runs a transfer whose client asked for windowsize > 1.
func (s *Server) serveWindowed(client *net.UDPAddr, path string, blksize int, tsize bool, window int) {
	defer s.windowed.Done()
	start := time.Now()
	n, err := s.sendWindowed(client, path, blksize, tsize, window)
	s.finish(client, path, n, start, err)
}

func (s *Server) sendWindowed(client *net.UDPAddr, path string, blksize int, tsize bool, window int) (int64, error) {
	conn, err := net.ListenUDP("udp", s.transferAddr())
	if err != nil {
		return 0, fmt.Errorf("transfer socket: %w", err)
	}
	defer conn.Close()
	t := &transfer{conn: conn, peer: client, timeout: s.cfg.Timeout, retries: s.cfg.Retries, recv: make([]byte, 1024)}
	f, size, err := s.open(path)
	if err != nil {
		t.sendError(errorCode(err), err.Error())
		return 0, err
	}
	defer f.Close()
	var opts []string
	if blksize > 0 {
		opts = append(opts, "blksize", strconv.Itoa(blksize))
	} else {
		blksize = minBlockSize
	}
	if tsize {
		opts = append(opts, "tsize", strconv.FormatInt(size, 10))
	}
	opts = append(opts, "windowsize", strconv.Itoa(window))
	if _, err := t.await([][]byte{packOACK(opts...)}, 0); err != nil {
		if errors.Is(err, errClientAbort) {
			err = fmt.Errorf("%w: %w", errProbe, err)
		}
		return 0, err
	}
	return t.sendData(f, blksize, window)
}

// transferAddr binds transfer sockets to the server socket's address when
// it is a specific one, so replies come from the address the client used.
func (s *Server) transferAddr() *net.UDPAddr {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a, ok := s.conn.LocalAddr().(*net.UDPAddr); ok && !a.IP.IsUnspecified() {
		return &net.UDPAddr{IP: a.IP}
	}
	return nil
}

// sendData streams r in blocks of blksize, window blocks at a time. Only
// the blocks of the current window are held in memory.
func (t *transfer) sendData(r io.Reader, blksize, window int) (int64, error) {
	slots := make([][]byte, window)
	for i := range slots {
		slots[i] = make([]byte, 4+blksize)
	}
	lens := make([]int, window)
	pkts := make([][]byte, 0, window)
	var total int64
	base, next, last := uint64(1), uint64(1), uint64(0) // last: the short block, once read
	w := uint64(window)
	for {
		for last == 0 && next-base < w {
			slot := slots[next%w]
			binary.BigEndian.PutUint16(slot, opDATA)
			binary.BigEndian.PutUint16(slot[2:], uint16(next)) // wraps to 0 after 65535
			k, err := io.ReadFull(r, slot[4:])
			if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
				t.sendError(codeUndefined, "read error")
				return total, fmt.Errorf("read: %w", err)
			}
			lens[next%w], total = 4+k, total+int64(k)
			if k < blksize {
				last = next
			}
			next++
		}
		pkts = pkts[:0]
		for i := base; i < next; i++ {
			pkts = append(pkts, slots[i%w][:lens[i%w]])
		}
		acked, err := t.await(pkts, base)
		if err != nil {
			return total, err
		}
		if acked == last {
			return total, nil
		}
		base = acked + 1
	}
}

// await sends pkts, numbered first, first+1, ..., and returns the number of
// the latest one the client acknowledges. It sends them again on timeout or
// when the client acknowledges the block before first (it got none of
// them), up to the retry limit.
func (t *transfer) await(pkts [][]byte, first uint64) (uint64, error) {
	for range t.retries {
		for _, p := range pkts {
			if _, err := t.conn.WriteToUDP(p, t.peer); err != nil {
				return 0, fmt.Errorf("send: %w", err)
			}
		}
		acked, err := t.waitAck(first, uint64(len(pkts)))
		if !errors.Is(err, errResend) {
			return acked, err
		}
	}
	t.sendError(codeUndefined, "timed out")
	return 0, fmt.Errorf("%w for block %d after %d attempts", errNoAck, first, t.retries)
}

func (t *transfer) waitAck(first, n uint64) (uint64, error) {
	if err := t.conn.SetReadDeadline(time.Now().Add(t.timeout)); err != nil {
		return 0, fmt.Errorf("deadline: %w", err)
	}
	for {
		m, from, err := t.conn.ReadFromUDP(t.recv)
		var ne net.Error
		switch {
		case errors.As(err, &ne) && ne.Timeout():
			return 0, errResend
		case err != nil:
			return 0, fmt.Errorf("receive: %w", err)
		case m < 4 || !from.IP.Equal(t.peer.IP) || from.Port != t.peer.Port:
			continue // not from our client: ignore
		}
		block := binary.BigEndian.Uint16(t.recv[2:])
		switch binary.BigEndian.Uint16(t.recv) {
		case opERROR:
			return 0, fmt.Errorf("%w: code %d: %q", errClientAbort, block, truncate(strings.TrimRight(string(t.recv[4:m]), "\x00"), 64))
		case opACK:
			if off := uint64(block - uint16(first)); off < n {
				return first + off, nil
			}
			if block == uint16(first-1) {
				return 0, errResend
			}
		}
	}
}

func (t *transfer) sendError(code uint16, msg string) {
	_, _ = t.conn.WriteToUDP(packError(code, msg), t.peer) // best effort: the transfer is over
}
