package leasefile

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/rackboot/rackboot/dhcp"
)

var exp = time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)

func lease(i int) dhcp.Lease {
	return dhcp.Lease{
		IP:       netip.AddrFrom4([4]byte{10, 99, byte(i >> 8), byte(i)}),
		MAC:      net.HardwareAddr{0x52, 0x54, 0, 0, byte(i >> 8), byte(i)},
		Hostname: fmt.Sprintf("host-%d", i),
		Expires:  exp.Add(time.Duration(i) * time.Second),
	}
}

func open(t *testing.T, dir string) *File {
	t.Helper()
	f, err := Open(dir, nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return f
}

func commit(t *testing.T, f *File, l dhcp.Lease) {
	t.Helper()
	if err := f.Commit(context.Background(), l); err != nil {
		t.Fatalf("Commit %v: %v", l.IP, err)
	}
}

// snapshot returns the leases keyed by address, for comparison.
func snapshot(f *File) map[netip.Addr]string {
	m := map[netip.Addr]string{}
	for l := range f.All() {
		m[l.IP] = fmt.Sprintf("%v %s %s", l.MAC, l.Hostname, l.Expires.UTC().Format(time.RFC3339Nano))
	}
	return m
}

func sameLeases(t *testing.T, got, want map[netip.Addr]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%d leases, want %d", len(got), len(want))
	}
	for ip, w := range want {
		if got[ip] != w {
			t.Errorf("lease on %v: got %q, want %q", ip, got[ip], w)
		}
	}
}

func TestSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	f := open(t, dir)
	for i := 1; i <= 10; i++ {
		commit(t, f, lease(i))
	}
	// Client 3 moves to a new address; 4 releases; 5's address is declined.
	moved := lease(3)
	moved.IP = netip.MustParseAddr("10.99.1.3")
	commit(t, f, moved)
	if err := f.Release(context.Background(), lease(4).IP); err != nil {
		t.Fatal(err)
	}
	commit(t, f, dhcp.Lease{IP: lease(5).IP, Expires: exp})
	if l, ok := f.ByMAC(lease(3).MAC); !ok || l.IP != moved.IP {
		t.Errorf("ByMAC after move: %+v %v", l, ok)
	}
	if _, ok := f.ByMAC(lease(5).MAC); ok {
		t.Errorf("declined client still has a lease by MAC")
	}
	want := snapshot(f)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(context.Background(), lease(20)); !errors.Is(err, ErrClosed) {
		t.Errorf("Commit after Close: %v", err)
	}

	g := open(t, dir)
	defer g.Close()
	sameLeases(t, snapshot(g), want)
	if _, ok := g.ByIP(lease(4).IP); ok {
		t.Errorf("released lease came back")
	}
	if l, ok := g.ByIP(lease(5).IP); !ok || !l.Declined() {
		t.Errorf("declined address lost: %+v %v", l, ok)
	}
}

func TestTruncatedTailIgnored(t *testing.T) {
	dir := t.TempDir()
	f := open(t, dir)
	for i := 1; i <= 3; i++ {
		commit(t, f, lease(i))
	}
	f.Close()
	path := filepath.Join(dir, Name)
	full, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	last := len(appendRecord(nil, op{lease: lease(3)}))
	// Every cut inside the last record loses that record only.
	for cut := 1; cut < last; cut++ {
		if err := os.WriteFile(path, full[:len(full)-cut], 0o640); err != nil {
			t.Fatal(err)
		}
		g := open(t, dir)
		got := snapshot(g)
		if len(got) != 2 {
			t.Fatalf("cut %d bytes: %d leases, want 2", cut, len(got))
		}
		if _, ok := g.ByIP(lease(3).IP); ok {
			t.Fatalf("cut %d bytes: half-written lease loaded", cut)
		}
		// New commits land after the cut and survive.
		commit(t, g, lease(7))
		g.Close()
		h := open(t, dir)
		if _, ok := h.ByIP(lease(7).IP); !ok || h.Len() != 3 {
			t.Fatalf("cut %d bytes: lease committed after the cut lost (%d leases)", cut, h.Len())
		}
		h.Close()
	}
}

func TestCorruptRecordEndsReplay(t *testing.T) {
	dir := t.TempDir()
	f := open(t, dir)
	for i := 1; i <= 3; i++ {
		commit(t, f, lease(i))
	}
	f.Close()
	path := filepath.Join(dir, Name)
	data, _ := os.ReadFile(path)
	rec := len(appendRecord(nil, op{lease: lease(1)}))
	data[len(header)+rec+frameLen+3] ^= 0xff // a payload byte of record 2
	os.WriteFile(path, data, 0o640)
	g := open(t, dir)
	defer g.Close()
	if g.Len() != 1 {
		t.Errorf("%d leases after corrupting record 2, want 1", g.Len())
	}
}

func TestNotALeaseLog(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, Name), []byte("hello, world"), 0o640)
	if _, err := Open(dir, nil); !errors.Is(err, ErrNotLeaseLog) {
		t.Errorf("Open on a foreign file: %v", err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, Name)); string(data) != "hello, world" {
		t.Errorf("foreign file changed")
	}
}

func TestGroupCommit(t *testing.T) {
	dir := t.TempDir()
	f := open(t, dir)
	const n = 500
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- f.Commit(context.Background(), lease(i+1))
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	want := snapshot(f)
	f.Close()
	g := open(t, dir)
	defer g.Close()
	sameLeases(t, snapshot(g), want)
	if g.Len() != n {
		t.Errorf("%d leases, want %d", g.Len(), n)
	}
}

func TestCompaction(t *testing.T) {
	dir := t.TempDir()
	const slack = 100
	f, err := openSlack(dir, nil, slack)
	if err != nil {
		t.Fatal(err)
	}
	// Renew the same 10 leases many times: the log must not grow forever.
	for round := range 2*slack/10 + 20 {
		for i := 1; i <= 10; i++ {
			l := lease(i)
			l.Expires = l.Expires.Add(time.Duration(round) * time.Minute)
			commit(t, f, l)
		}
	}
	want := snapshot(f)
	f.Close()
	st, err := os.Stat(filepath.Join(dir, Name))
	if err != nil {
		t.Fatal(err)
	}
	rec := int64(len(appendRecord(nil, op{lease: lease(1)})))
	if max := int64(len(header)) + rec*(2*10+slack+1); st.Size() > max {
		t.Errorf("log is %d bytes after compaction, want at most %d", st.Size(), max)
	}
	g := open(t, dir)
	defer g.Close()
	sameLeases(t, snapshot(g), want)
}

func TestContextCancelled(t *testing.T) {
	f := open(t, t.TempDir())
	defer f.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// Either the batch was already synced or the wait was cut short; never
	// a hang.
	if err := f.Commit(ctx, lease(1)); err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("Commit with a cancelled context: %v", err)
	}
}
