package tftp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"time"
)

// gate sits between the server socket and pin/tftp. pin/tftp reads requests
// through it; the gate decodes and checks each one first, answers bad ones
// with an ERROR itself, starts windowed transfers itself, and hands pin/tftp
// only good read requests, rewritten with the cleaned path and the options
// pin/tftp implements. pin/tftp never sees network input unchecked.
type gate struct {
	net.PacketConn
	s   *Server
	buf []byte // only pin/tftp's single request loop reads through the gate
}

func (g *gate) ReadFrom(b []byte) (int, net.Addr, error) {
	for {
		n, addr, err := g.PacketConn.ReadFrom(g.buf)
		if err != nil {
			return 0, nil, g.s.readFailed(err)
		}
		client, ok := addr.(*net.UDPAddr)
		if !ok {
			continue
		}
		if rrq := g.s.admit(g.buf[:n], client); rrq != nil {
			return copy(b, rrq), addr, nil
		}
	}
}

// admit decides what to do with one packet from the server socket. It
// returns the request to hand to pin/tftp, or nil when it dealt with the
// packet itself.
func (s *Server) admit(p []byte, client *net.UDPAddr) []byte {
	req, err := parseRequest(p)
	if err != nil {
		s.malformed.Add(1)
		s.log.Warn("tftp malformed packet", "client", client.String(), "err", err)
		// Answer broken requests; never answer stray DATA/ACK/ERROR packets,
		// which could start an error ping-pong with another TFTP endpoint.
		if len(p) >= 2 && (binary.BigEndian.Uint16(p) == opRRQ || binary.BigEndian.Uint16(p) == opWRQ) {
			s.sendError(client, codeIllegalOp, err)
		}
		return nil
	}
	path, err := s.check(req)
	if err != nil {
		s.rejected.Add(1)
		s.log.Info("tftp request refused", "client", client.String(), "file", req.name, "reason", err)
		s.sendError(client, errorCode(err), err)
		return nil
	}
	if !s.takeSlot(client, path) {
		return nil
	}
	s.started.Add(1)
	blksize := min(req.blksize, s.cfg.MaxBlockSize)
	if blksize < minBlockSize {
		blksize = 0
	}
	window := min(req.windowsize, s.cfg.MaxWindowSize)
	s.log.Info("tftp read", "client", client.String(), "file", path, "blksize", blksize, "windowsize", window)
	if window > 1 && req.mode == "octet" {
		if !s.addWindowed() {
			s.finish(client, path, 0, time.Now(), ErrServerClosed)
			return nil
		}
		go s.serveWindowed(client, path, blksize, req.tsize, window)
		return nil
	}
	s.handed = transferKey{clientKey(client.AddrPort()), path}
	return packRRQ(path, req.mode, blksize, req.tsize)
}

// takeSlot takes a transfer slot of the client and one of the server for
// a transfer of path. A request repeating a running transfer is dropped
// (that transfer answers it); a client or server at its cap gets ERROR
// "server busy".
func (s *Server) takeSlot(client *net.UDPAddr, path string) bool {
	err := s.clients.acquire(client.AddrPort(), path)
	if errors.Is(err, errDuplicate) {
		s.duplicates.Add(1)
		s.log.Debug("tftp request repeats a transfer in progress", "client", client.String(), "file", path)
		return false
	}
	if err == nil && s.active.Add(1) > int64(s.cfg.MaxTransfers) {
		s.active.Add(-1)
		s.clients.release(client.AddrPort(), path)
		err = ErrBusy
	}
	if err != nil {
		s.rejected.Add(1)
		s.log.Warn("tftp request refused", "client", client.String(), "file", path, "reason", err)
		s.sendError(client, codeUndefined, ErrBusy)
		return false
	}
	return true
}

// addWindowed registers a windowed transfer unless Shutdown has begun
// (Shutdown waits for those registered before it).
func (s *Server) addWindowed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.windowed.Add(1)
	return true
}

// check refuses writes, bad names and names that are not a file in the root.
func (s *Server) check(req request) (string, error) {
	if req.write {
		return "", fmt.Errorf("%w: write request for %q", ErrReadOnly, truncate(req.name, 64))
	}
	path, err := CleanPath(req.name)
	if err != nil {
		return "", err
	}
	st, err := fs.Stat(s.fsys, path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) { // the client is told less
			s.log.Warn("tftp file in root cannot be read", "file", path, "err", err)
		}
		return "", fsError(path, err)
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("%w: %s is not a regular file", ErrNotFound, path)
	}
	return path, nil
}

func errorCode(err error) uint16 {
	switch {
	case errors.Is(err, ErrNotFound):
		return codeNotFound
	case errors.Is(err, ErrMalformed):
		return codeIllegalOp
	case errors.Is(err, ErrBusy):
		return codeUndefined
	default: // ErrAccess, ErrBadName, ErrReadOnly
		return codeAccess
	}
}

// sendError answers a refused request from a fresh socket, as a transfer
// would (its own TID), so that the client's reply to the ERROR, if any, does
// not come back to the server port.
func (s *Server) sendError(client *net.UDPAddr, code uint16, err error) {
	conn, lerr := net.ListenUDP("udp", s.transferAddr())
	if lerr != nil {
		s.log.Warn("tftp error reply not sent", "client", client.String(), "err", lerr)
		return
	}
	defer conn.Close()
	if _, werr := conn.WriteToUDP(packError(code, err.Error()), client); werr != nil {
		s.log.Debug("tftp error reply not sent", "client", client.String(), "err", werr)
	}
}
