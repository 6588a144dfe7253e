package tlsnet

import (
	"context"
	"net"
	"time"

	"github.com/hashicorp/raft"
)

// Raft returns the raft.StreamLayer of the port: Accept yields the peers'
// raft connections, Dial opens one. Closing it closes the Net.
func (n *Net) Raft() raft.StreamLayer { return streamLayer{n} }

type streamLayer struct{ n *Net }

func (s streamLayer) Accept() (net.Conn, error) {
	select {
	case c := <-s.n.raftCh:
		return c, nil
	case <-s.n.closed:
		return nil, ErrClosed
	}
}

func (s streamLayer) Close() error { return s.n.Close() }

func (s streamLayer) Addr() net.Addr { return s.n.Addr() }

func (s streamLayer) Dial(addr raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return s.n.Dial(ctx, string(addr), ProtoRaft)
}
