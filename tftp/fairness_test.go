package tftp

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// newRawClientFrom is newRawClient bound to the loopback address ip
// (127.0.0.0/8 is all loopback on Linux), a client of its own.
func newRawClientFrom(t *testing.T, server *net.UDPAddr, ip net.IP) *rawClient {
	t.Helper()
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: ip})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &rawClient{t: t, conn: conn, server: server}
}

// flood opens n transfers of big.bin from 127.0.0.1, each from a port of
// its own and never acknowledged, and returns how many got a first DATA
// block and how many an ERROR "busy".
func flood(t *testing.T, f *fixture, n int) (started, busy int) {
	t.Helper()
	for range n {
		c := newRawClient(t, f.addr)
		c.send(rq(opRRQ, "big.bin", "octet"))
		op, num, rest := c.recv()
		switch {
		case op == opDATA && num == 1:
			started++
		case op == opERROR && strings.Contains(string(rest), "busy"):
			busy++
		default:
			t.Fatalf("flood request %d: opcode %d (%d) %q", started+busy, op, num, rest)
		}
	}
	return started, busy
}

// One address flooding the server with requests takes at most its share
// of the transfer slots: another PXE client is still served (it used to
// get "server busy" once the flood held every slot).
func TestFloodFromOneClientDoesNotStopAnother(t *testing.T) {
	f := newFixture(t, Config{MaxTransfers: 16, MaxTransfersPerClient: 4, Timeout: 3 * time.Second, Retries: 1})
	started, busy := flood(t, f, 40)
	if started != 4 || busy != 36 {
		t.Errorf("flood of 40 from one address: %d started, %d busy; want 4 and 36", started, busy)
	}
	other := newRawClientFrom(t, f.addr, net.IPv4(127, 0, 0, 2))
	if got := other.get("hello.txt"); string(got) != "hello, rackboot\n" {
		t.Fatalf("another client during the flood: got %q", got)
	}
}

// The same, with a real client: curl from another address fetches the
// file while one address holds its transfers.
func TestRealClientServedDuringFlood(t *testing.T) {
	bin, err := exec.LookPath("curl")
	if err != nil {
		t.Skipf("curl not installed: %v", err)
	}
	f := newFixture(t, Config{MaxTransfers: 16, Timeout: 3 * time.Second, Retries: 1}) // 8 per client by default
	if started, _ := flood(t, f, 20); started != 8 {
		t.Errorf("flood of 20 from one address: %d started, want the default 8 per client", started)
	}
	local := filepath.Join(t.TempDir(), "hello.txt")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "-sS", "--interface", "127.0.0.3", "-o", local,
		"tftp://127.0.0.1:"+f.port()+"/hello.txt").CombinedOutput()
	if err != nil {
		t.Fatalf("curl from 127.0.0.3 during the flood: %v\n%s", err, out)
	}
	if got, _ := os.ReadFile(local); string(got) != "hello, rackboot\n" {
		t.Errorf("curl fetched %q", got)
	}
}

// A client resending its request while the transfer runs (a slow first
// block) gets that transfer, not a second one: the repeat takes no slot.
func TestRepeatedRequestIsNotASecondTransfer(t *testing.T) {
	f := newFixture(t, Config{MaxTransfersPerClient: 1, Timeout: 3 * time.Second, Retries: 1})
	c := newRawClient(t, f.addr)
	c.send(rq(opRRQ, "hello.txt", "octet"))
	c.expectData(1)
	c.peer = nil
	c.send(rq(opRRQ, "hello.txt", "octet"))
	waitStats(t, f.srv, func(s Stats) bool { return s.Duplicates == 1 })
	if st := f.srv.Stats(); st.Started != 1 || st.Rejected != 0 {
		t.Errorf("after a repeated request: %+v, want 1 started, none refused", st)
	}
}
