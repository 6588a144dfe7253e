package tftp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"log/slog"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// fixture is a TFTP root on disk served by a Server on 127.0.0.1.
type fixture struct {
	srv    *Server
	addr   *net.UDPAddr
	root   string
	secret string // a file next to the root, never to be served
}

func (f *fixture) port() string { return strconv.Itoa(f.addr.Port) }

func (f *fixture) file(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(f.root, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t testing.TB, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func randomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// newFixture builds a root with small, big, block-multiple and empty files,
// a directory, and symlinks inside and out of the root, and serves it.
func newFixture(t testing.TB, cfg Config) *fixture {
	t.Helper()
	parent := t.TempDir()
	f := &fixture{root: filepath.Join(parent, "root"), secret: filepath.Join(parent, "secret.txt")}
	writeFile(t, f.secret, []byte("SECRET\n"))
	writeFile(t, filepath.Join(f.root, "hello.txt"), []byte("hello, rackboot\n"))
	writeFile(t, filepath.Join(f.root, "big.bin"), randomBytes(4<<20+123, 1))
	writeFile(t, filepath.Join(f.root, "exact.bin"), randomBytes(512*8, 2))
	writeFile(t, filepath.Join(f.root, "empty"), nil)
	writeFile(t, filepath.Join(f.root, "sub", "inner.txt"), []byte("inner\n"))
	symlink(t, f.secret, filepath.Join(f.root, "abs-escape"))
	symlink(t, "../secret.txt", filepath.Join(f.root, "rel-escape"))
	symlink(t, "hello.txt", filepath.Join(f.root, "inside-link"))
	fsys, err := RootFS(f.root)
	if err != nil {
		t.Fatal(err)
	}
	f.srv, f.addr = serve(t, New(fsys, cfg, slog.New(slog.NewTextHandler(t.Output(), nil))))
	return f
}

// serve runs srv on a fresh 127.0.0.1 socket until the test ends, and
// checks Serve then returns ErrServerClosed.
func serve(t testing.TB, srv *Server) (*Server, *net.UDPAddr) {
	t.Helper()
	return serveOn(t, srv, "127.0.0.1:0")
}

func serveOn(t testing.TB, srv *Server, addr string) (*Server, *net.UDPAddr) {
	t.Helper()
	conn, err := net.ListenPacket("udp", addr)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(conn) }()
	t.Cleanup(func() {
		srv.Shutdown()
		if err := <-done; !errors.Is(err, ErrServerClosed) {
			t.Errorf("Serve returned %v, want ErrServerClosed", err)
		}
	})
	return srv, conn.LocalAddr().(*net.UDPAddr)
}

// rawClient speaks TFTP packet by packet, to test what clients cannot be
// made to do (lose blocks, stay silent, send garbage).
type rawClient struct {
	t      *testing.T
	conn   *net.UDPConn
	server *net.UDPAddr
	peer   *net.UDPAddr // the transfer's TID, once the server answered
}

func newRawClient(t *testing.T, server *net.UDPAddr) *rawClient {
	t.Helper()
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &rawClient{t: t, conn: conn, server: server}
}

func (c *rawClient) send(p []byte) {
	c.t.Helper()
	to := c.server
	if c.peer != nil {
		to = c.peer
	}
	if _, err := c.conn.WriteToUDP(p, to); err != nil {
		c.t.Fatal(err)
	}
}

func (c *rawClient) ack(block uint16) { c.send([]byte{0, opACK, byte(block >> 8), byte(block)}) }

// recv returns the next packet's opcode, its block number or error code,
// and the rest. The deadline only stops a broken server from hanging the test.
func (c *rawClient) recv() (op, num uint16, rest []byte) {
	c.t.Helper()
	buf := make([]byte, 70000)
	c.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	n, from, err := c.conn.ReadFromUDP(buf)
	if err != nil {
		c.t.Fatalf("no answer from the server: %v", err)
	}
	if n < 2 {
		c.t.Fatalf("runt packet %q", buf[:n])
	}
	c.peer = from
	op = binary.BigEndian.Uint16(buf)
	if op == opOACK {
		return op, 0, buf[2:n]
	}
	if n < 4 {
		c.t.Fatalf("runt packet %q", buf[:n])
	}
	return op, binary.BigEndian.Uint16(buf[2:]), buf[4:n]
}

func (c *rawClient) expectError(code uint16) string {
	c.t.Helper()
	op, num, rest := c.recv()
	if op != opERROR || num != code {
		c.t.Fatalf("got opcode %d (%d), want ERROR code %d", op, num, code)
	}
	return string(bytes.TrimRight(rest, "\x00"))
}

// get fetches name lock-step with default options, checking each block.
func (c *rawClient) get(name string) []byte {
	c.t.Helper()
	c.peer = nil
	c.send(rq(opRRQ, name, "octet"))
	var data []byte
	for want := uint16(1); ; want++ {
		op, num, rest := c.recv()
		for op == opDATA && num == want-1 { // a retransmission: our ACK was late
			op, num, rest = c.recv()
		}
		if op != opDATA || num != want {
			c.t.Fatalf("got opcode %d block %d (%q), want DATA %d", op, num, rest, want)
		}
		data = append(data, rest...)
		c.ack(num)
		if len(rest) < 512 {
			return data
		}
	}
}
