package apitls

import (
	"bufio"
	"crypto/tls"
	"io"
	"net"
	"sync"
	"time"
)

// handshakeByte starts every TLS connection (a handshake record).
const handshakeByte = 0x16

// Listener wraps ln: a connection whose first byte starts a TLS handshake
// is served through TLS with cfg, any other as it is. The choice is made
// on the connection's first Read, so Accept never waits for a client.
func Listener(ln net.Listener, cfg *tls.Config) net.Listener {
	return &listener{Listener: ln, cfg: cfg}
}

type listener struct {
	net.Listener
	cfg *tls.Config
}

func (l *listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &conn{raw: c, cfg: l.cfg}, nil
}

// conn is a connection that becomes TLS or plain on its first use.
type conn struct {
	raw  net.Conn
	cfg  *tls.Config
	once sync.Once
	c    net.Conn
}

// peeked is raw with the byte the choice read put back.
type peeked struct {
	net.Conn
	r *bufio.Reader
}

func (p *peeked) Read(b []byte) (int, error) { return p.r.Read(b) }

func (c *conn) decide() net.Conn {
	c.once.Do(func() {
		p := &peeked{Conn: c.raw, r: bufio.NewReaderSize(c.raw, 512)}
		c.c = p
		if b, err := p.r.Peek(1); err == nil && b[0] == handshakeByte {
			c.c = tls.Server(p, c.cfg)
		}
	})
	return c.c
}

// TLS reports whether the connection turned out to be TLS.
func (c *conn) TLS() bool {
	_, ok := c.decide().(*tls.Conn)
	return ok
}

func (c *conn) Read(b []byte) (int, error)  { return c.decide().Read(b) }
func (c *conn) Write(b []byte) (int, error) { return c.decide().Write(b) }
func (c *conn) Close() error                { return c.raw.Close() }

func (c *conn) LocalAddr() net.Addr  { return c.raw.LocalAddr() }
func (c *conn) RemoteAddr() net.Addr { return c.raw.RemoteAddr() }
func (c *conn) SetDeadline(t time.Time) error {
	return c.raw.SetDeadline(t)
}
func (c *conn) SetReadDeadline(t time.Time) error  { return c.raw.SetReadDeadline(t) }
func (c *conn) SetWriteDeadline(t time.Time) error { return c.raw.SetWriteDeadline(t) }

// ReadFrom lets net/http hand a file body (http.ServeContent of an
// *os.File) to the kernel: a plain connection writes through the raw
// connection's ReadFrom (*net.TCPConn: sendfile(2) or splice(2)), as
// it would without this listener; only the peeked read side differs. A
// TLS connection copies through TLS.
func (c *conn) ReadFrom(r io.Reader) (int64, error) {
	d := c.decide()
	if p, ok := d.(*peeked); ok {
		if rf, ok := p.Conn.(io.ReaderFrom); ok {
			return rf.ReadFrom(r)
		}
	}
	return io.Copy(struct{ io.Writer }{d}, r)
}
