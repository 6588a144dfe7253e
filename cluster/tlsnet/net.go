package tlsnet

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/rackboot/rackboot/cluster/rackca"
)

// The ALPN protocols of the port.
const (
	ProtoRaft = "rackboot-raft/1"
	ProtoRPC  = "rackboot-rpc/1"
)

// Errors of the package.
var (
	// ErrClosed: the Net is closed.
	ErrClosed = errors.New("tlsnet: closed")
	// ErrRefused: a peer is not admitted (wraps the reason).
	ErrRefused = errors.New("tlsnet: peer refused")
)

// handshakeTimeout bounds a TLS handshake.
const handshakeTimeout = 10 * time.Second

// Config configures a Net.
type Config struct {
	// Identity is this node's rack identity.
	Identity *rackca.Identity
	// Listener is the TCP listener to serve.
	Listener net.Listener
	// Advertise is the address peers dial (default: the listener's).
	Advertise net.Addr
	// Admit, when set, decides whether the verified peer node may open a
	// connection carrying proto; an error refuses it.
	Admit func(peer, proto string) error
	// Expect, when set, returns the node id that should answer at addr
	// ("" when any rack node may).
	Expect func(addr string) string
	// Log receives refusals; nil discards.
	Log *slog.Logger
	// Now is the clock for certificate checks (default time.Now).
	Now func() time.Time
}

// Conn is an accepted or dialed connection with its peer's node id.
type Conn struct {
	*tls.Conn
	Peer string
	net  *Net // the Net tracking it (accepted connections)
}

// Close closes the connection.
func (c *Conn) Close() error {
	if c.net != nil {
		c.net.forget(c)
	}
	return c.Conn.Close()
}

// Net serves the port and dials peers.
type Net struct {
	cfg    Config
	raftCh chan *Conn
	mu     sync.Mutex
	rpc    func(*Conn)
	conns  map[*Conn]struct{} // accepted and not yet closed
	closed chan struct{}
	wg     sync.WaitGroup
}

// New starts serving cfg.Listener. Raft connections queue for Raft's
// Accept; RPC connections are refused until Serve is called.
func New(cfg Config) *Net {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	n := &Net{cfg: cfg, raftCh: make(chan *Conn), conns: map[*Conn]struct{}{}, closed: make(chan struct{})}
	n.wg.Add(1)
	go n.acceptLoop()
	return n
}

// Addr is the address peers dial: Config.Advertise, else the listener's.
func (n *Net) Addr() net.Addr {
	if n.cfg.Advertise != nil {
		return n.cfg.Advertise
	}
	return n.cfg.Listener.Addr()
}

// Serve hands every RPC connection to fn, in a goroutine of its own; fn
// must close it.
func (n *Net) Serve(fn func(*Conn)) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.rpc = fn
}

// Close stops the listener and closes every accepted connection.
func (n *Net) Close() error {
	n.mu.Lock()
	select {
	case <-n.closed:
		n.mu.Unlock()
		return nil
	default:
	}
	close(n.closed)
	for c := range n.conns {
		c.Conn.Close()
	}
	n.mu.Unlock()
	err := n.cfg.Listener.Close()
	n.wg.Wait()
	return err
}

// Revoke closes the accepted connections of peer (a node that stopped
// being a member).
func (n *Net) Revoke(peer string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for c := range n.conns {
		if c.Peer == peer {
			c.Conn.Close()
		}
	}
}

func (n *Net) acceptLoop() {
	defer n.wg.Done()
	for {
		c, err := n.cfg.Listener.Accept()
		if err != nil {
			select {
			case <-n.closed:
				return
			default:
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			n.cfg.Log.Error("peer listener failed", "err", err)
			return
		}
		n.wg.Add(1)
		go func() {
			defer n.wg.Done()
			n.handshake(c)
		}()
	}
}

// handshake runs the server side of the TLS handshake and dispatches the
// connection by its ALPN protocol.
func (n *Net) handshake(raw net.Conn) {
	tc := tls.Server(raw, n.serverConfig())
	ctx, cancel := context.WithTimeout(context.Background(), handshakeTimeout)
	defer cancel()
	if err := tc.HandshakeContext(ctx); err != nil {
		msg := "refused a connection from a peer"
		if strings.Contains(err.Error(), "remote error: tls: bad certificate") {
			msg = "a peer refused this node's certificate (a node of another rack CA?)"
		}
		n.cfg.Log.Warn(msg, "remote", raw.RemoteAddr().String(), "err", err)
		tc.Close()
		return
	}
	st := tc.ConnectionState()
	peer, _ := rackca.NodeID(st.PeerCertificates[0])
	c := &Conn{Conn: tc, Peer: peer, net: n}
	if !n.track(c) {
		return
	}
	switch st.NegotiatedProtocol {
	case ProtoRaft:
		select {
		case n.raftCh <- c:
		case <-n.closed:
			c.Close()
		}
	case ProtoRPC:
		n.mu.Lock()
		fn := n.rpc
		n.mu.Unlock()
		if fn == nil {
			c.Close()
			return
		}
		fn(c)
	}
}

// track records c as open; it reports false (and closes c) once closed.
func (n *Net) track(c *Conn) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	select {
	case <-n.closed:
		c.Conn.Close()
		return false
	default:
	}
	n.conns[c] = struct{}{}
	return true
}

// forget stops tracking c.
func (n *Net) forget(c *Conn) {
	n.mu.Lock()
	delete(n.conns, c)
	n.mu.Unlock()
}

// verify checks a peer's certificate chain and returns its node id.
func (n *Net) verify(st tls.ConnectionState) (string, error) {
	raw := make([][]byte, len(st.PeerCertificates))
	for i, c := range st.PeerCertificates {
		raw[i] = c.Raw
	}
	return n.cfg.Identity.Verify(raw, n.cfg.Now())
}

func (n *Net) serverConfig() *tls.Config {
	return &tls.Config{
		MinVersion:             tls.VersionTLS13,
		Certificates:           []tls.Certificate{n.cfg.Identity.Cert},
		ClientAuth:             tls.RequireAnyClientCert,
		NextProtos:             []string{ProtoRaft, ProtoRPC},
		SessionTicketsDisabled: true,
		VerifyConnection: func(st tls.ConnectionState) error {
			peer, err := n.verify(st)
			if err != nil {
				return fmt.Errorf("%w: %w", ErrRefused, err)
			}
			switch st.NegotiatedProtocol {
			case ProtoRaft, ProtoRPC:
			default:
				return fmt.Errorf("%w: node %s speaks no protocol of this port", ErrRefused, peer)
			}
			if n.cfg.Admit != nil {
				if err := n.cfg.Admit(peer, st.NegotiatedProtocol); err != nil {
					return fmt.Errorf("%w: node %s: %w", ErrRefused, peer, err)
				}
			}
			return nil
		},
	}
}

func (n *Net) clientConfig(addr, proto string) *tls.Config {
	return &tls.Config{
		MinVersion:             tls.VersionTLS13,
		Certificates:           []tls.Certificate{n.cfg.Identity.Cert},
		NextProtos:             []string{proto},
		InsecureSkipVerify:     true, // verified below: rack CA and node id, not a host name
		SessionTicketsDisabled: true,
		VerifyConnection: func(st tls.ConnectionState) error {
			peer, err := n.verify(st)
			if err != nil {
				return fmt.Errorf("%w: %s: %w", ErrRefused, addr, err)
			}
			if st.NegotiatedProtocol != proto {
				return fmt.Errorf("%w: %s (node %s) does not speak %s", ErrRefused, addr, peer, proto)
			}
			if n.cfg.Expect != nil {
				if want := n.cfg.Expect(addr); want != "" && want != peer {
					return fmt.Errorf("%w: %s is node %s, not %s", ErrRefused, addr, peer, want)
				}
			}
			return nil
		},
	}
}

// Dial connects to the peer at addr for proto and completes the
// handshake.
func (n *Net) Dial(ctx context.Context, addr, proto string) (*Conn, error) {
	select {
	case <-n.closed:
		return nil, ErrClosed
	default:
	}
	var d net.Dialer
	raw, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("tlsnet: dial %s: %w", addr, err)
	}
	tc := tls.Client(raw, n.clientConfig(addr, proto))
	if err := tc.HandshakeContext(ctx); err != nil {
		raw.Close()
		return nil, fmt.Errorf("tlsnet: handshake with %s: %w", addr, err)
	}
	peer, _ := rackca.NodeID(tc.ConnectionState().PeerCertificates[0])
	return &Conn{Conn: tc, Peer: peer}, nil
}
