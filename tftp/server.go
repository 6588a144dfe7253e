package tftp

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	pin "github.com/pin/tftp/v3"
)

// Config tunes the server. The zero value is a working configuration.
type Config struct {
	// Timeout is how long a transfer waits for an ACK before sending again.
	// Default 1s (tftpd-hpa's default).
	Timeout time.Duration
	// Retries is how many times a packet is sent before a transfer is given
	// up. Default 5.
	Retries int
	// MaxBlockSize caps the blksize option (RFC 2348). Default 1468, which
	// fills a 1500-byte Ethernet frame (EDK2 asks 1468, iPXE 1432). Larger
	// values are honoured up to 65464 and rely on IP fragmentation beyond
	// the path MTU.
	MaxBlockSize int
	// MaxWindowSize caps the windowsize option (RFC 7440). Default 16.
	// 1 turns windowsize off: every transfer then goes lock-step.
	MaxWindowSize int
	// MaxTransfers caps concurrent transfers (each holds a socket); a
	// request beyond it gets ERROR "server busy". Default 512.
	MaxTransfers int
	// MaxTransfersPerClient caps the concurrent transfers of one client
	// address, so that a client flooding requests cannot take every slot
	// from the others; beyond it the client gets ERROR "server busy".
	// Default 8 (a PXE firmware fetches one file at a time). A request
	// repeating one whose transfer runs (same address, port and file) is
	// not a new transfer: the running one answers it.
	MaxTransfersPerClient int
}

func (c Config) withDefaults() Config {
	if c.Timeout <= 0 {
		c.Timeout = time.Second
	}
	if c.Retries <= 0 {
		c.Retries = 5
	}
	if c.MaxBlockSize <= 0 {
		c.MaxBlockSize = 1468
	}
	c.MaxBlockSize = min(max(c.MaxBlockSize, minBlockSize), maxBlockSize)
	if c.MaxWindowSize <= 0 {
		c.MaxWindowSize = 16
	}
	c.MaxWindowSize = min(c.MaxWindowSize, 64)
	if c.MaxTransfers <= 0 {
		c.MaxTransfers = 512
	}
	if c.MaxTransfersPerClient <= 0 {
		c.MaxTransfersPerClient = 8
	}
	c.MaxTransfersPerClient = min(c.MaxTransfersPerClient, c.MaxTransfers)
	return c
}

// Stats counts what the server did since New.
type Stats struct {
	Started    uint64 // read requests accepted
	Completed  uint64 // transfers acknowledged to the last block
	Failed     uint64 // accepted transfers that did not complete (timeout, client error)
	Probes     uint64 // transfers the client ended right after the OACK, having learnt tsize (UEFI PXE does this before each download)
	Rejected   uint64 // well-formed requests refused with an ERROR (write, bad path, missing file, busy)
	Malformed  uint64 // packets on the server port that are not a TFTP request
	Duplicates uint64 // requests repeating a transfer in progress, answered by that transfer
	Bytes      uint64 // file bytes sent in completed and failed transfers
	Active     int64  // transfers in progress now
}

// Server is a read-only TFTP server over an fs.FS. It serves one socket:
// call Serve or ListenAndServe once.
type Server struct {
	fsys fs.FS
	cfg  Config
	log  *slog.Logger
	pin  *pin.Server

	clients *clients // transfers in progress per client address
	// handed is the transfer the gate last handed to pin/tftp. pin/tftp
	// opens its socket before reading the next request, so a failure to
	// open it (reported without the client) is this transfer's. Only
	// pin/tftp's request loop touches it.
	handed transferKey

	started, completed, failed, probes, rejected, malformed, duplicates, bytes atomic.Uint64
	active                                                                     atomic.Int64

	mu       sync.Mutex
	conn     net.PacketConn
	closing  bool
	serveErr error
	stopOnce sync.Once
	windowed sync.WaitGroup // transfers served by the RFC 7440 sender
}

// New returns a server for fsys (normally from RootFS). A nil log discards.
func New(fsys fs.FS, cfg Config, log *slog.Logger) *Server {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{fsys: fsys, cfg: cfg.withDefaults(), log: log}
	s.clients = newClients(s.cfg.MaxTransfersPerClient)
	s.pin = pin.NewServer(s.read, nil)
	s.pin.SetHook(startFailure{s})
	s.pin.SetTimeout(s.cfg.Timeout)
	s.pin.SetRetries(s.cfg.Retries)
	s.pin.SetBackoff(func(int) time.Duration { return 0 }) // the timeout already waited
	// The gate hands pin/tftp requests whose blksize is already capped.
	s.pin.SetBlockSizeNegotiation(false)
	s.pin.SetBlockSize(s.cfg.MaxBlockSize)
	return s
}

// ListenAndServe listens on the UDP address addr (e.g. ":69") and serves it.
func (s *Server) ListenAndServe(addr string) error {
	conn, err := net.ListenPacket("udp", addr)
	if err != nil {
		return fmt.Errorf("tftp listen %s: %w", addr, err)
	}
	return s.Serve(conn)
}

// Serve answers requests arriving on conn, a UDP socket, until Shutdown
// (then it returns ErrServerClosed) or until reading conn fails. conn is
// closed when Serve returns. Transfers use their own ephemeral sockets.
func (s *Server) Serve(conn net.PacketConn) error {
	if _, ok := conn.LocalAddr().(*net.UDPAddr); !ok {
		conn.Close()
		return fmt.Errorf("tftp: serve %s: not a UDP socket", conn.LocalAddr())
	}
	s.mu.Lock()
	if s.closing || s.conn != nil {
		s.mu.Unlock()
		conn.Close()
		return ErrServerClosed
	}
	s.conn = conn
	s.mu.Unlock()
	s.log.Info("tftp serving", "addr", conn.LocalAddr().String())
	err := s.pin.Serve(&gate{PacketConn: conn, s: s, buf: make([]byte, 4096)})
	conn.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.serveErr != nil:
		return s.serveErr
	case err != nil:
		return fmt.Errorf("tftp serve: %w", err)
	}
	return ErrServerClosed
}

// Shutdown stops taking requests, lets running transfers finish (each ends
// at the latest after Timeout×Retries without an ACK) and makes Serve return.
func (s *Server) Shutdown() {
	s.mu.Lock()
	s.closing = true
	if s.conn != nil {
		s.conn.Close() // wakes the request loop even if pin/tftp has not seen conn yet
	}
	s.mu.Unlock()
	s.stop()
	s.windowed.Wait()
}

func (s *Server) stop() { s.stopOnce.Do(s.pin.Shutdown) }

// readFailed is called when the server socket cannot be read: after
// Shutdown that is expected; otherwise it ends Serve with the error.
func (s *Server) readFailed(err error) error {
	s.mu.Lock()
	first := !s.closing && s.serveErr == nil
	if first {
		s.serveErr = fmt.Errorf("tftp read: %w", err)
	}
	s.mu.Unlock()
	if first {
		go s.stop()
	}
	return err
}

// Stats returns the counters.
func (s *Server) Stats() Stats {
	return Stats{
		Started:    s.started.Load(),
		Completed:  s.completed.Load(),
		Failed:     s.failed.Load(),
		Probes:     s.probes.Load(),
		Rejected:   s.rejected.Load(),
		Malformed:  s.malformed.Load(),
		Duplicates: s.duplicates.Load(),
		Bytes:      s.bytes.Load(),
		Active:     s.active.Load(),
	}
}

// open opens a cleaned path and checks it is a regular file.
func (s *Server) open(path string) (fs.File, int64, error) {
	f, err := s.fsys.Open(path)
	if err != nil {
		return nil, 0, fsError(path, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, fsError(path, err)
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, 0, fmt.Errorf("%w: %s is not a regular file", ErrNotFound, path)
	}
	return f, st.Size(), nil
}

func fsError(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %s", ErrNotFound, path)
	}
	// Permission denied, a symlink escaping RootFS, a loop: say no more.
	return fmt.Errorf("%w: %s cannot be read", ErrAccess, path)
}

// read is pin/tftp's read handler; path was cleaned and checked by the gate.
func (s *Server) read(path string, rf io.ReaderFrom) error {
	ot := rf.(pin.OutgoingTransfer)
	client := ot.RemoteAddr()
	start := time.Now()
	f, size, err := s.open(path)
	if err != nil {
		s.finish(&client, path, 0, start, err)
		return err
	}
	defer f.Close()
	ot.SetSize(size)
	n, err := rf.ReadFrom(f)
	// pin/tftp reports a client ERROR answering its OACK only as text.
	if err != nil && n == 0 && strings.HasPrefix(err.Error(), "sending block 0: code=") {
		err = fmt.Errorf("%w: %w", errProbe, err)
	}
	s.finish(&client, path, n, start, err)
	return err
}

// startFailure is the pin/tftp hook. The only failure it reports that
// read does not see is a request the gate admitted whose transfer socket
// could not be opened; that transfer is counted as failed.
type startFailure struct{ s *Server }

func (startFailure) OnSuccess(pin.TransferStats) {}

func (h startFailure) OnFailure(st pin.TransferStats, err error) {
	var op *net.OpError
	if st.Filename == "" && errors.As(err, &op) && op.Op == "listen" {
		k := h.s.handed
		h.s.finish(net.UDPAddrFromAddrPort(k.client), k.path, 0, time.Now(), fmt.Errorf("transfer socket: %w", err))
	}
}

// finish counts and logs the end of an accepted transfer, and frees its
// slots.
func (s *Server) finish(client *net.UDPAddr, path string, n int64, start time.Time, err error) {
	s.active.Add(-1)
	s.clients.release(addrPort(client), path)
	s.bytes.Add(uint64(max(n, 0)))
	attrs := []any{"client", client.String(), "file", path, "bytes", n, "duration", time.Since(start).Round(time.Millisecond)}
	switch {
	case errors.Is(err, errProbe):
		s.probes.Add(1)
		s.log.Info("tftp options probe ended by the client", append(attrs, "err", err)...)
		return
	case err != nil:
		s.failed.Add(1)
		s.log.Warn("tftp transfer failed", append(attrs, "err", err)...)
		return
	}
	s.completed.Add(1)
	s.log.Info("tftp transfer complete", attrs...)
}
