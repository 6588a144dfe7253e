package cluster

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/cluster/rackca"
	"github.com/rackboot/rackboot/cluster/tlsnet"
)

// membersOf is the configuration's member ids as nd sees them.
func membersOf(t *testing.T, nd *rackNode) []string {
	t.Helper()
	servers, err := nd.st.members.servers()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range servers {
		ids = append(ids, string(s.ID))
	}
	return ids
}

// A node whose certificate comes from another CA cannot join: the
// handshake fails on both sides with a clear log line, and nothing
// changes.
func TestStrangerCARefused(t *testing.T) {
	r := newRack(t, 3)
	r.start(r.nodes...)
	writeIE(t, r.nodes[0].st, 1)
	before := r.converge()

	other, err := rackca.New(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	x := newRackNode(t, other, "n9")
	cfg := r.config(x)
	cfg.Bootstrap, cfg.Join = nil, r.nodes[1].addr
	st, err := openCtx(cfg, 3*time.Second)
	if err == nil {
		st.Close()
		t.Fatal("a node of another CA opened as a member")
	}
	line := x.log.waitLog(t, "asking to join the raft cluster failed", "is not from this rack's CA")
	t.Logf("stranger: %s", strings.TrimSpace(line))
	line = r.nodes[1].log.waitLog(t, "a peer refused this node's certificate")
	t.Logf("member: %s", strings.TrimSpace(line))

	// A client that skips checking the member's certificate gets its own
	// refused by the member.
	for _, proto := range []string{tlsnet.ProtoRaft, tlsnet.ProtoRPC} {
		c, err := tls.Dial("tcp", r.nodes[2].addr, &tls.Config{
			Certificates: []tls.Certificate{x.ident.Cert}, InsecureSkipVerify: true,
			NextProtos: []string{proto}, MinVersion: tls.VersionTLS13,
		})
		if err == nil {
			// TLS 1.3: the client learns of the refusal on its first read.
			_, err = c.Read(make([]byte, 1))
			c.Close()
		}
		if err == nil || !strings.Contains(err.Error(), "bad certificate") {
			t.Errorf("%s with a stranger's certificate: %v", proto, err)
		}
	}
	line = r.nodes[2].log.waitLog(t, "refused a connection from a peer", "is not from this rack's CA")
	t.Logf("member: %s", strings.TrimSpace(line))

	if got := membersOf(t, r.nodes[1]); len(got) != 3 {
		t.Errorf("members after the stranger tried: %v", got)
	}
	if after := r.converge(); string(after) != string(before) {
		t.Error("the state changed")
	}
}

// A member removed while it was down, restarted from its data directory,
// campaigns with its old configuration: the others refuse its raft
// connections (only members are admitted) and go on undisturbed.
func TestRemovedMemberRefused(t *testing.T) {
	r := newRack(t, 3)
	r.start(r.nodes...)
	ld := r.leader()
	gone := r.followers(ld)[0]
	r.stop(gone)
	if err := ld.st.RemoveMember(context.Background(), gone.id); err != nil {
		t.Fatal(err)
	}
	writeIE(t, ld.st, 1)
	before := r.converge()

	// On another port: the leader's last best-effort replication to the
	// removed node (its removal included) must not reach it.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := r.config(gone)
	cfg.Listener = ln
	ctx, cancel := context.WithCancel(context.Background())
	opened := make(chan error, 1)
	go func() {
		st, err := Open(ctx, cfg)
		if err == nil {
			st.Close()
		}
		opened <- err
	}()
	line := anyLog(t, r.followers(gone), "refused a connection from a peer", "node "+gone.id, "not a member of this cluster")
	t.Logf("member: %s", strings.TrimSpace(line))
	cancel()
	if err := <-opened; err == nil {
		t.Fatal("a removed member opened and found a leader")
	}
	for _, nd := range r.followers(gone) {
		if got := membersOf(t, nd); len(got) != 2 {
			t.Errorf("%s: members %v", nd.id, got)
		}
	}
	if after := r.converge(); string(after) != string(before) {
		t.Error("the state changed")
	}
	writeIE(t, r.followers(gone)[0].st, 2)
}

// A member that saw its own removal says so when restarted.
func TestRemovedMemberSaysSo(t *testing.T) {
	r := newRack(t, 3)
	r.start(r.nodes...)
	ld := r.leader()
	gone := r.followers(ld)[0]
	if err := ld.st.RemoveMember(context.Background(), gone.id); err != nil {
		t.Fatal(err)
	}
	// Wait until the removal reached its log (raft stops replicating to a
	// removed server once the change commits, so it may not see that).
	deadline := time.Now().Add(20 * time.Second)
	for slices.Contains(membersOf(t, gone), gone.id) {
		if time.Now().After(deadline) {
			t.Skip("the removal never reached the removed node's log")
		}
		waitFor(20 * time.Millisecond)
	}
	r.stop(gone)
	if st, err := openCtx(r.config(gone), 3*time.Second); err == nil {
		st.Close()
		t.Fatal("a removed member opened")
	}
	gone.log.waitLog(t, "this node is not a member of its raft cluster (it was removed)")
}

// A data directory keeps its node id, and a certificate must name the
// node id configured.
func TestNodeIDChecks(t *testing.T) {
	r := newRack(t, 3)
	r.start(r.nodes...)
	nd := r.nodes[0]
	r.stop(nd)

	cfg := r.config(nd)
	cfg.NodeID = "n2"
	if _, err := openCtx(cfg, 5*time.Second); !errors.Is(err, ErrOpen) || !strings.Contains(err.Error(), "names node \"n1\", not \"n2\"") {
		t.Errorf("certificate of n1 opened as n2: %v", err)
	}
	other := newRackNode(t, r.ca, "n2")
	cfg = r.config(nd)
	cfg.NodeID, cfg.Identity = "n2", other.ident
	if _, err := openCtx(cfg, 5*time.Second); !errors.Is(err, ErrOpen) || !strings.Contains(err.Error(), "belongs to node \"n1\"") {
		t.Errorf("n1's data directory opened as n2: %v", err)
	}
}

// A removed member wiped and restarted with join cannot come back by
// itself; an operator's AddMember lets it in again.
func TestRemovedMemberCannotRejoinByItself(t *testing.T) {
	r := newRack(t, 3)
	r.start(r.nodes...)
	ld := r.leader()
	gone := r.followers(ld)[0]
	if err := ld.st.RemoveMember(context.Background(), gone.id); err != nil {
		t.Fatal(err)
	}
	r.stop(gone)
	gone.dir = t.TempDir() // wiped

	cfg := r.config(gone)
	cfg.Bootstrap, cfg.Join = nil, ld.addr
	opened := make(chan error, 1)
	go func() {
		st, err := openCtx(cfg, 60*time.Second)
		gone.st = st
		opened <- err
	}()
	line := gone.log.waitLog(t, "asking to join the raft cluster failed", "was removed from this cluster")
	t.Logf("removed node: %s", strings.TrimSpace(line))
	ld.log.waitLog(t, "refused the join of a removed member", gone.id)
	if got := membersOf(t, ld); len(got) != 2 {
		t.Errorf("members: %v", got)
	}

	if err := r.followers(gone)[1].st.AddMember(context.Background(), Peer{ID: gone.id, Addr: gone.addr}); err != nil {
		t.Fatal(err)
	}
	if err := <-opened; err != nil {
		t.Fatalf("re-added node: %v", err)
	}
	writeIE(t, gone.st, 1)
	r.converge()
	if ld.st.wasRemoved(gone.id) {
		t.Error("the removal record outlived the re-add")
	}
}

// anyLog waits until one of the nodes logs a line with every one of subs.
func anyLog(t *testing.T, nodes []*rackNode, subs ...string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		for _, nd := range nodes {
			for line := range strings.Lines(nd.log.String()) {
				if containsAll(line, subs) {
					return line
				}
			}
		}
		waitFor(20 * time.Millisecond)
	}
	t.Fatalf("no node logged a line with %q", subs)
	return ""
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// Removing the leader itself records the removal too.
func TestRemoveLeaderRecorded(t *testing.T) {
	r := newRack(t, 3)
	r.start(r.nodes...)
	ld := r.leader()
	f := r.followers(ld)[0]
	if err := f.st.RemoveMember(context.Background(), ld.id); err != nil {
		t.Fatal(err)
	}
	if err := f.st.Barrier(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !f.st.wasRemoved(ld.id) {
		t.Error("the removed leader's removal is not recorded")
	}
}
