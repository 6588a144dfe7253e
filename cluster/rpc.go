package cluster

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/rackboot/rackboot/cluster/tlsnet"
)

// The cluster's own RPCs travel on the peer port (ALPN tlsnet.ProtoRPC),
// one request and one response at a time per connection, each a JSON
// document behind its 4-byte big-endian length.

// RPC operations.
const (
	opApply     = "apply"     // append a forwarded command (leader only)
	opReadIndex = "readindex" // confirm leadership and return the applied index (leader only)
	opJoin      = "join"      // add a voter (forwarded to the leader)
	opRemove    = "remove"    // remove a server (forwarded to the leader)
	opStats     = "stats"     // this member's raft state
)

// Response codes.
const (
	codeOK        = ""
	codeNotLeader = "not_leader" // nothing was done: ask the leader
	codeRefused   = "refused"    // the peer may not do this
	codeNotFound  = "not_found"  // refused: no such member
	codeInvalid   = "invalid"    // refused: a malformed request
	codeFailed    = "failed"     // the operation failed
	codeUnknown   = "unknown"    // leadership was lost while committing: outcome unknown
)

// maxFrame bounds an RPC document.
const maxFrame = 16 << 20

// errRPC wraps failures of the RPC channel.
var errRPC = errors.New("cluster: peer rpc")

type rpcRequest struct {
	Op   string `json:"op"`
	Data []byte `json:"data,omitempty"` // apply: the encoded command
	Tag  []byte `json:"tag,omitempty"`  // apply: the forwarding node's tag
	ID   string `json:"id,omitempty"`   // join, remove
	Addr string `json:"addr,omitempty"` // join
}

type rpcResponse struct {
	Code  string       `json:"code,omitempty"`
	Err   string       `json:"err,omitempty"`
	Index uint64       `json:"index,omitempty"`
	Stats *MemberStats `json:"stats,omitempty"`
}

func writeFrame(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	buf := make([]byte, 4, 4+len(b))
	binary.BigEndian.PutUint32(buf, uint32(len(b)))
	_, err = w.Write(append(buf, b...))
	return err
}

func readFrame(r io.Reader, v any) error {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n > maxFrame {
		return fmt.Errorf("%w: frame of %d bytes", errRPC, n)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%w: %w", errRPC, err)
	}
	return nil
}

// rpcConn is a pooled RPC connection.
type rpcConn struct {
	c  *tlsnet.Conn
	rd *bufio.Reader
	// idle gets the result of the read that watches the connection while
	// it sits in the pool: a peer sends nothing on an idle connection, so
	// anything but the timeout that ends the watch means it is closed.
	idle chan error
}

// watch starts watching an idle connection.
func (c *rpcConn) watch() {
	c.idle = make(chan error, 1)
	go func() {
		_, err := c.rd.Peek(1)
		c.idle <- err
	}()
}

// alive ends the watch and reports whether the connection is still open.
func (c *rpcConn) alive() bool {
	_ = c.c.SetReadDeadline(time.Now())
	err := <-c.idle
	_ = c.c.SetReadDeadline(time.Time{})
	var ne interface{ Timeout() bool }
	return errors.As(err, &ne) && ne.Timeout()
}

// pool keeps idle RPC connections per address.
type pool struct {
	net  *tlsnet.Net
	mu   sync.Mutex
	idle map[string][]*rpcConn
}

const maxIdle = 32

// dialTimeout bounds connecting to a peer, so that a dead leader's
// address is given up quickly while an election runs.
const dialTimeout = 3 * time.Second

func newPool(n *tlsnet.Net) *pool { return &pool{net: n, idle: map[string][]*rpcConn{}} }

// get returns a live idle connection to addr or dials one.
func (p *pool) get(ctx context.Context, addr string) (*rpcConn, error) {
	for {
		p.mu.Lock()
		l := p.idle[addr]
		if len(l) == 0 {
			p.mu.Unlock()
			break
		}
		c := l[len(l)-1]
		p.idle[addr] = l[:len(l)-1]
		p.mu.Unlock()
		if c.alive() {
			return c, nil
		}
		c.c.Close()
	}
	dctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	c, err := p.net.Dial(dctx, addr, tlsnet.ProtoRPC)
	if err != nil {
		return nil, err
	}
	return &rpcConn{c: c, rd: bufio.NewReader(c)}, nil
}

func (p *pool) put(addr string, c *rpcConn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.idle == nil || len(p.idle[addr]) >= maxIdle {
		c.c.Close()
		return
	}
	c.watch()
	p.idle[addr] = append(p.idle[addr], c)
}

func (p *pool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range p.idle {
		for _, c := range l {
			c.c.Close()
		}
	}
	p.idle = nil
}

// call sends req to addr and returns the response. sent reports whether
// the request may have reached the peer (an error before that is safe to
// retry).
func (p *pool) call(ctx context.Context, addr string, req rpcRequest) (resp rpcResponse, sent bool, err error) {
	c, err := p.get(ctx, addr)
	if err != nil {
		return resp, false, fmt.Errorf("%w: %w", errRPC, err)
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = c.c.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { _ = c.c.SetDeadline(time.Now()) })
	defer stop()
	if err := writeFrame(c.c, req); err != nil {
		c.c.Close()
		return resp, true, fmt.Errorf("%w: %s %s: %w", errRPC, req.Op, addr, err)
	}
	if err := readFrame(c.rd, &resp); err != nil {
		c.c.Close()
		if ctx.Err() != nil {
			err = context.Cause(ctx)
		}
		return resp, true, fmt.Errorf("%w: %s %s: %w", errRPC, req.Op, addr, err)
	}
	if stop() {
		_ = c.c.SetDeadline(time.Time{})
		p.put(addr, c)
	} else {
		c.c.Close()
	}
	return resp, true, nil
}
