package netns

import (
	"context"
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
