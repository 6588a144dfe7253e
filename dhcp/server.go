package dhcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/insomniacslk/dhcp/dhcpv4"
)

// Sentinel errors of request handling. Handling errors are counted and
// logged; the server keeps serving.
var (
	ErrMalformed = errors.New("dhcp: malformed packet")
	ErrExhausted = errors.New("dhcp: no free address")
	ErrRelay     = errors.New("dhcp: relay address outside the served subnet")
)

// Booter says whether a MAC gets boot information at all.
type Booter interface {
	Bootable(ctx context.Context, mac net.HardwareAddr) bool
}

// BootAll is a Booter that boots every MAC.
type BootAll struct{}

// Bootable returns true.
func (BootAll) Bootable(context.Context, net.HardwareAddr) bool { return true }

// BootNone is a Booter that boots no MAC.
type BootNone struct{}

// Bootable returns false.
func (BootNone) Bootable(context.Context, net.HardwareAddr) bool { return false }

// Server answers DHCPv4 requests. Create it with New.
type Server struct {
	st     atomic.Pointer[state]
	leases Leases
	booter Booter
	log    *slog.Logger
	pool   pool
	stats  counters
	now    func() time.Time
}

// state is an immutable view of a Config with its lookup tables.
type state struct {
	cfg      Config
	resByMAC map[string]Reservation
	resByIP  map[netip.Addr]Reservation
	serverIP net.IP
	mask     net.IPMask
}

func newState(cfg Config) (*state, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	st := &state{
		cfg:      cfg,
		resByMAC: make(map[string]Reservation, len(cfg.Reservations)),
		resByIP:  make(map[netip.Addr]Reservation, len(cfg.Reservations)),
		serverIP: net.IP(cfg.ServerIP.AsSlice()),
	}
	if cfg.Subnet.IsValid() {
		st.mask = net.CIDRMask(cfg.Subnet.Bits(), 32)
	}
	for _, r := range cfg.Reservations {
		st.resByMAC[string(r.MAC)] = r
		st.resByIP[r.IP] = r
	}
	return st, nil
}

// New returns a server for cfg. leases must not be nil in full mode; a nil
// booter boots every MAC; a nil log discards.
func New(cfg Config, leases Leases, booter Booter, log *slog.Logger) (*Server, error) {
	st, err := newState(cfg)
	if err != nil {
		return nil, err
	}
	if leases == nil {
		if cfg.Mode == ModeFull {
			return nil, fmt.Errorf("%w: full mode needs a lease store", ErrConfig)
		}
		leases = NewMemoryLeases()
	}
	if booter == nil {
		booter = BootAll{}
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{leases: leases, booter: booter, log: log, now: time.Now}
	s.pool.held = map[netip.Addr]hold{}
	s.pool.offered = map[string]netip.Addr{}
	s.st.Store(st)
	return s, nil
}

// Reload validates cfg and swaps it in atomically. Leases are kept; a bad
// cfg leaves the running configuration untouched.
func (s *Server) Reload(cfg Config) error {
	st, err := newState(cfg)
	if err != nil {
		return err
	}
	s.st.Store(st)
	s.freed()
	s.log.Info("dhcp configuration reloaded", "mode", cfg.Mode.String(), "reservations", len(cfg.Reservations))
	return nil
}

// Config returns the running configuration, defaults filled in.
func (s *Server) Config() Config { return s.st.Load().cfg }

// Serve answers the requests arriving on conn until ctx is done or conn
// fails. Replies go out on conn. It does not close conn. Requests are
// handled concurrently by a fixed pool of workers, each reading the socket
// into its own buffer (no goroutine or buffer allocated per packet).
func (s *Server) Serve(ctx context.Context, conn net.PacketConn) error {
	port4011 := false
	if a, ok := conn.LocalAddr().(*net.UDPAddr); ok && a.Port == PortPXE {
		port4011 = true
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, func() { conn.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.work(ctx, conn, port4011); err != nil {
				once.Do(func() { first = err })
				cancel()
			}
		}()
	}
	wg.Wait()
	return first
}

// work reads and answers requests until ctx is done (nil) or conn fails.
func (s *Server) work(ctx context.Context, conn net.PacketConn, port4011 bool) error {
	buf := make([]byte, maxPacket)
	for {
		n, from, err := conn.ReadFrom(buf)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return fmt.Errorf("dhcp: read: %w", err)
		}
		s.serveOne(ctx, conn, buf[:n], from, port4011)
	}
}

// Ports of DHCP and of the PXE boot server.
const (
	PortServer = 67
	PortClient = 68
	PortPXE    = 4011

	maxPacket = 1500
	// workers is how many requests of one socket are handled at once;
	// most of them wait for the lease store, so it is generous.
	workers = 512
)

func (s *Server) serveOne(ctx context.Context, conn net.PacketConn, b []byte, from net.Addr, port4011 bool) {
	s.stats.received.Add(1)
	req, err := dhcpv4.FromBytes(b)
	if err != nil {
		s.stats.malformed.Add(1)
		s.stats.count(nil, OutcomeMalformed)
		s.log.Debug("dropped malformed packet", "from", from.String(), "err", err)
		return
	}
	mt := req.MessageType()
	reply, err := s.handle(ctx, req, port4011)
	if err != nil {
		level, outcome := s.countDrop(err)
		s.stats.count(&mt, outcome)
		s.logReq(ctx, level, "dropped request", req, "type", mt.String(), "err", err)
		return
	}
	if reply == nil {
		s.stats.count(&mt, OutcomeIgnored)
		return
	}
	to := replyAddr(req, reply, from)
	if _, err := conn.WriteTo(reply.ToBytes(), to); err != nil {
		s.stats.dropped.Add(1)
		s.stats.count(&mt, OutcomeError)
		s.logReq(ctx, slog.LevelWarn, "sending reply failed", req, "to", to.String(), "err", err)
		return
	}
	s.stats.replied.Add(1)
	s.stats.count(&mt, OutcomeReplied)
	s.logReq(ctx, slog.LevelDebug, "replied", req, "type", reply.MessageType().String(),
		"yiaddr", reply.YourIPAddr.String(), "to", to.String())
}

// countDrop counts a dropped request and says how loudly to log it and
// which outcome it was.
func (s *Server) countDrop(err error) (slog.Level, Outcome) {
	switch {
	case errors.Is(err, ErrMalformed):
		s.stats.malformed.Add(1)
		return slog.LevelDebug, OutcomeMalformed
	case errors.Is(err, ErrExhausted):
		s.stats.exhausted.Add(1)
		return slog.LevelWarn, OutcomeExhausted
	case errors.Is(err, ErrRelay):
		s.stats.dropped.Add(1)
		return slog.LevelInfo, OutcomeRelay
	default:
		s.stats.dropped.Add(1)
		return slog.LevelError, OutcomeError
	}
}

// logReq logs with the request's mac and xid, building nothing when the
// level is disabled.
func (s *Server) logReq(ctx context.Context, level slog.Level, msg string, req *dhcpv4.DHCPv4, args ...any) {
	if !s.log.Enabled(ctx, level) {
		return
	}
	args = append([]any{"mac", req.ClientHWAddr.String(), "xid", req.TransactionID.String()}, args...)
	s.log.Log(ctx, level, msg, args...)
}

// replyAddr says where a reply goes (RFC 2131 4.1): to the relay's port 67;
// to the source of a client that does not use port 68 (port 4011 clients,
// tests); unicast to ciaddr; otherwise broadcast on the interface.
func replyAddr(req, reply *dhcpv4.DHCPv4, from net.Addr) *net.UDPAddr {
	if gi := req.GatewayIPAddr.To4(); gi != nil && !gi.IsUnspecified() {
		return &net.UDPAddr{IP: gi, Port: PortServer}
	}
	if u, ok := from.(*net.UDPAddr); ok && u.Port != PortClient && u.Port != PortServer && !u.IP.IsUnspecified() {
		return u
	}
	ci := req.ClientIPAddr.To4()
	if ci != nil && !ci.IsUnspecified() && reply.MessageType() != dhcpv4.MessageTypeNak {
		return &net.UDPAddr{IP: ci, Port: PortClient}
	}
	return &net.UDPAddr{IP: net.IPv4bcast, Port: PortClient}
}
