package tlsnet

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/rackboot/rackboot/cluster/rackca"
)

func identity(t *testing.T, ca *rackca.CA, id string) *rackca.Identity {
	t.Helper()
	c, k, err := ca.Issue(id, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	ident, err := rackca.NewIdentity(ca.CertPEM(), c, k, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return ident
}

type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// wait waits (with a deadline) for the log to hold sub: the server logs
// after the handshake, which the dialer may finish first.
func (l *logBuf) wait(t *testing.T, sub string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(l.String(), sub) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in the log:\n%s", sub, l.String())
		}
		pause(10 * time.Millisecond)
	}
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// serve starts a Net for id that echoes one line per RPC connection,
// prefixed with the peer's node id.
func serve(t *testing.T, ident *rackca.Identity, admit func(peer, proto string) error) (*Net, *logBuf) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	lb := &logBuf{}
	n := New(Config{Identity: ident, Listener: ln, Admit: admit, Log: slog.New(slog.NewTextHandler(lb, nil))})
	n.Serve(func(c *Conn) {
		defer c.Close()
		line, err := bufio.NewReader(c).ReadString('\n')
		if err == nil {
			_, _ = io.WriteString(c, c.Peer+":"+line)
		}
	})
	t.Cleanup(func() { n.Close() })
	return n, lb
}

func dialer(t *testing.T, ident *rackca.Identity, expect func(string) string) *Net {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	n := New(Config{Identity: ident, Listener: ln, Expect: expect})
	t.Cleanup(func() { n.Close() })
	return n
}

func echo(ctx context.Context, n *Net, addr string) (string, error) {
	c, err := n.Dial(ctx, addr, ProtoRPC)
	if err != nil {
		return "", err
	}
	defer c.Close()
	if _, err := io.WriteString(c, "hello\n"); err != nil {
		return "", err
	}
	return bufio.NewReader(c).ReadString('\n')
}

func TestRPCBetweenRackNodes(t *testing.T) {
	ca, _ := rackca.New(time.Now())
	srv, _ := serve(t, identity(t, ca, "a"), nil)
	cli := dialer(t, identity(t, ca, "b"), func(string) string { return "a" })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got, err := echo(ctx, cli, srv.Addr().String())
	if err != nil || got != "b:hello\n" {
		t.Fatalf("echo = %q, %v", got, err)
	}
	// The node at the address is not the one expected there.
	wrong := dialer(t, identity(t, ca, "b"), func(string) string { return "c" })
	if _, err := echo(ctx, wrong, srv.Addr().String()); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "is node a, not c") {
		t.Errorf("dial expecting c reached a: %v", err)
	}
}

func TestStrangersRefused(t *testing.T) {
	ca, _ := rackca.New(time.Now())
	other, _ := rackca.New(time.Now())
	admit := func(peer, proto string) error {
		if proto == ProtoRaft && peer != "b" {
			return errors.New("not a member")
		}
		return nil
	}
	srv, lb := serve(t, identity(t, ca, "a"), admit)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	stranger := dialer(t, identity(t, other, "b"), nil)
	if _, err := echo(ctx, stranger, srv.Addr().String()); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "not from this rack's CA") {
		t.Errorf("stranger: %v", err)
	}
	lb.wait(t, "a peer refused this node's certificate")

	// c is of the rack but not admitted to raft: the handshake is refused
	// (TLS 1.3: the dialer sees it on its first read).
	c := dialer(t, identity(t, ca, "c"), nil)
	conn, err := c.Dial(ctx, srv.Addr().String(), ProtoRaft)
	if err == nil {
		_, err = conn.Read(make([]byte, 1))
		conn.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "bad certificate") {
		t.Errorf("raft from a non-member: %v", err)
	}
	lb.wait(t, "node c: not a member")
}

// Raft connections arrive through the stream layer; Revoke closes a
// peer's.
func TestRaftStreamAndRevoke(t *testing.T) {
	ca, _ := rackca.New(time.Now())
	srv, _ := serve(t, identity(t, ca, "a"), nil)
	cli := dialer(t, identity(t, ca, "b"), nil)
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := srv.Raft().Accept()
		if err == nil {
			accepted <- c
		}
	}()
	out, err := cli.Raft().Dial(raftAddr(srv), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	in := <-accepted
	if _, err := out.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 1)
	if _, err := io.ReadFull(in, b); err != nil || b[0] != 'x' {
		t.Fatalf("read %q %v", b, err)
	}
	srv.Revoke("b")
	_ = out.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := out.Read(b); err == nil {
		t.Error("revoked connection still open")
	}
	srv.Close()
	if _, err := srv.Raft().Accept(); !errors.Is(err, ErrClosed) {
		t.Errorf("Accept after Close: %v", err)
	}
}

func raftAddr(n *Net) raft.ServerAddress { return raft.ServerAddress(n.Addr().String()) }

func pause(d time.Duration) {
	t := time.NewTimer(d)
	<-t.C
}
