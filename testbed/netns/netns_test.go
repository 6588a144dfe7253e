package netns

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

func TestBridgeAndVethReachEachOther(t *testing.T) {
	if err := Available(); err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rack, err := New(ctx, "tbtest")
	if err != nil {
		t.Fatal(err)
	}
	defer rack.Close()
	if err := rack.AddBridge(ctx, "br0", "10.99.7.1/24"); err != nil {
		t.Fatal(err)
	}
	host, err := New(ctx, "tbhost")
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	if err := rack.AddVethToBridge(ctx, "br0", host, "eth0", "10.99.7.50/24", "52:54:00:aa:bb:cc"); err != nil {
		t.Fatal(err)
	}
	out, err := host.Run(ctx, "busybox", "ping", "-c", "1", "-W", "5", "10.99.7.1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "1 packets received") {
		t.Fatalf("ping through the bridge failed: %s", out)
	}
	link, err := host.Run(ctx, "ip", "link", "show", "eth0")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(link, "52:54:00:aa:bb:cc") {
		t.Fatalf("peer MAC not applied: %s", link)
	}
}

func TestDoCreatesSocketsInsideTheNamespace(t *testing.T) {
	if err := Available(); err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rack, err := New(ctx, "tbdo")
	if err != nil {
		t.Fatal(err)
	}
	defer rack.Close()
	if err := rack.AddBridge(ctx, "br0", "10.99.8.1/24"); err != nil {
		t.Fatal(err)
	}
	var ln net.Listener
	// 10.99.8.1 exists only inside the namespace: listening on it from the
	// host namespace would fail with "cannot assign requested address".
	if err := rack.Do(func() (err error) { ln, err = net.Listen("tcp4", "10.99.8.1:0"); return err }); err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if _, err := net.Listen("tcp4", "10.99.8.1:0"); err == nil {
		t.Fatal("the host namespace should not have the namespace's address")
	}
	go func() {
		c, err := ln.Accept()
		if err == nil {
			c.Write([]byte("hello from the namespace\n"))
			c.Close()
		}
	}()
	out, err := rack.Run(ctx, "busybox", "nc", "10.99.8.1", fmt.Sprint(ln.Addr().(*net.TCPAddr).Port))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "hello from the namespace") {
		t.Fatalf("got %q", out)
	}
}
