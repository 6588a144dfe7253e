package tftp

import (
	"bytes"
	"errors"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

// waitStats polls the counters until ok holds, failing after a deadline.
func waitStats(t *testing.T, s *Server, ok func(Stats) bool) Stats {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Second)
	for {
		st := s.Stats()
		if ok(st) {
			return st
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("stats never reached the expected state: %+v", st)
		}
	}
}

func TestRefusedRequestsGetAnErrorAndNoData(t *testing.T) {
	f := newFixture(t, Config{})
	cases := []struct {
		pkt  []byte
		code uint16
		msg  string
	}{
		{rq(opWRQ, "upload.bin", "octet"), codeAccess, "read-only"},
		{rq(opWRQ, "hello.txt", "octet"), codeAccess, "read-only"},
		{rq(opRRQ, "../../etc/passwd", "octet"), codeAccess, "leaves the root"},
		{rq(opRRQ, "../secret.txt", "octet"), codeAccess, "leaves the root"},
		{rq(opRRQ, `..\secret.txt`, "octet"), codeAccess, "leaves the root"},
		{rq(opRRQ, "sub/../../x", "octet"), codeAccess, "leaves the root"},
		{rq(opRRQ, "abs-escape", "octet"), codeAccess, "cannot be read"},
		{rq(opRRQ, "rel-escape", "octet"), codeAccess, "cannot be read"},
		{rq(opRRQ, "/etc/passwd", "octet"), codeNotFound, "not found"},
		{rq(opRRQ, "missing.efi", "octet"), codeNotFound, "not found"},
		{rq(opRRQ, "sub", "octet"), codeNotFound, "not a regular file"},
		{rq(opRRQ, "/", "octet"), codeAccess, "names no file"},
		{rq(opRRQ, "a\nb", "octet"), codeAccess, "control character"},
		{rq(opRRQ, "abs-escape", "octet", "windowsize", "4"), codeAccess, "cannot be read"},
	}
	for _, c := range cases {
		cl := newRawClient(t, f.addr)
		cl.send(c.pkt)
		if msg := cl.expectError(c.code); !strings.Contains(msg, c.msg) {
			t.Errorf("request %q: error %q, want it to mention %q", c.pkt, msg, c.msg)
		}
		if strings.Contains(cl.expectNothingMore(), "SECRET") {
			t.Fatalf("request %q leaked the secret", c.pkt)
		}
	}
	st := waitStats(t, f.srv, func(s Stats) bool { return s.Rejected == uint64(len(cases)) })
	if st.Started != 0 || st.Bytes != 0 {
		t.Errorf("refused requests started transfers: %+v", st)
	}
}

// expectNothingMore returns whatever else arrives (after an ERROR nothing
// should) within a short grace period.
func (c *rawClient) expectNothingMore() string {
	buf := make([]byte, 2048)
	c.conn.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	n, _, err := c.conn.ReadFromUDP(buf)
	if err == nil {
		c.t.Errorf("unexpected packet after ERROR: %q", buf[:n])
		return string(buf[:n])
	}
	return ""
}

func TestServesFilesInsideTheRoot(t *testing.T) {
	f := newFixture(t, Config{})
	for name, file := range map[string]string{
		"hello.txt":       "hello.txt",
		"/hello.txt":      "hello.txt", // PXE ROMs that ask with a leading slash
		"//sub/inner.txt": "sub/inner.txt",
		`sub\inner.txt`:   "sub/inner.txt",
		"inside-link":     "hello.txt", // a symlink that stays inside the root
		"empty":           "empty",
		"exact.bin":       "exact.bin", // a multiple of 512: ends with an empty block
	} {
		got := newRawClient(t, f.addr).get(name)
		if !bytes.Equal(got, f.file(t, file)) {
			t.Errorf("%q: got %d bytes, want the %d bytes of %s", name, len(got), len(f.file(t, file)), file)
		}
	}
	waitStats(t, f.srv, func(s Stats) bool { return s.Completed == 7 && s.Started == 7 && s.Failed == 0 })
}

func TestOptionsAreNegotiated(t *testing.T) {
	f := newFixture(t, Config{})
	for _, c := range []struct {
		opts []string
		want string
	}{
		{[]string{"blksize", "65464", "tsize", "0"}, "blksize\x001468\x00tsize\x004194427\x00"},
		{[]string{"blksize", "1432"}, "blksize\x001432\x00"},
		{[]string{"tsize", "0", "timeout", "3"}, "tsize\x004194427\x00"},
		{[]string{"blksize", "1468", "windowsize", "4", "tsize", "0"}, "blksize\x001468\x00tsize\x004194427\x00windowsize\x004\x00"},
		{[]string{"windowsize", "1000"}, "windowsize\x0016\x00"},
	} {
		cl := newRawClient(t, f.addr)
		cl.send(rq(opRRQ, append([]string{"big.bin", "octet"}, c.opts...)...))
		op, _, rest := cl.recv()
		if op != opOACK || !sameOptions(string(rest), c.want) {
			t.Errorf("options %q: got opcode %d %q, want OACK %q", c.opts, op, rest, c.want)
		}
		// As UEFI PXE does after learning the size: ERROR 8 answering the OACK.
		cl.send(append([]byte{0, opERROR, 0, 8}, "User aborted the transfer\x00"...))
	}
	waitStats(t, f.srv, func(s Stats) bool { return s.Probes == 5 && s.Failed == 0 })
}

// sameOptions compares NUL-separated name/value lists in any order
// (pin/tftp writes its OACK from a map).
func sameOptions(a, b string) bool {
	pairs := func(s string) map[string]string {
		m := map[string]string{}
		f := strings.Split(strings.TrimSuffix(s, "\x00"), "\x00")
		for i := 0; i+1 < len(f); i += 2 {
			m[f[i]] = f[i+1]
		}
		return m
	}
	pa, pb := pairs(a), pairs(b)
	if len(pa) != len(pb) {
		return false
	}
	for k, v := range pa {
		if pb[k] != v {
			return false
		}
	}
	return true
}

func (c *rawClient) expectData(blocks ...uint16) []byte {
	c.t.Helper()
	var data []byte
	for _, want := range blocks {
		op, num, rest := c.recv()
		if op != opDATA || num != want {
			c.t.Fatalf("got opcode %d block %d, want DATA %d", op, num, want)
		}
		data = append(data, rest...)
	}
	return data
}

// TestWindowRestartsAfterLoss plays an RFC 7440 client that lost block 3 of
// the first window: it acknowledges block 2, and the server must go on from 3.
func TestWindowRestartsAfterLoss(t *testing.T) {
	f := newFixture(t, Config{})
	cl := newRawClient(t, f.addr)
	cl.send(rq(opRRQ, "exact.bin", "octet", "windowsize", "4"))
	if op, _, rest := cl.recv(); op != opOACK || string(rest) != "windowsize\x004\x00" {
		t.Fatalf("got opcode %d %q, want OACK windowsize 4", op, rest)
	}
	cl.ack(0)
	first := cl.expectData(1, 2, 3, 4)
	cl.ack(2) // 3 and 4 "lost"
	data := append(first[:2*512], cl.expectData(3, 4, 5, 6)...)
	cl.ack(6)
	data = append(data, cl.expectData(7, 8, 9)...) // 9 is the empty last block
	cl.ack(9)
	if !bytes.Equal(data, f.file(t, "exact.bin")) {
		t.Fatalf("reassembled %d bytes differ from the file", len(data))
	}
	waitStats(t, f.srv, func(s Stats) bool { return s.Completed == 1 && s.Bytes == 4096 })
}

// TestSilentClientGetsRetransmissions checks both transfer paths resend
// what was not acknowledged, then give up and count a failure.
func TestSilentClientGetsRetransmissions(t *testing.T) {
	f := newFixture(t, Config{Timeout: 20 * time.Millisecond, Retries: 3})
	cl := newRawClient(t, f.addr)
	cl.send(rq(opRRQ, "big.bin", "octet", "windowsize", "2"))
	for range 3 { // the OACK, sent Retries times
		if op, _, _ := cl.recv(); op != opOACK {
			t.Fatalf("got opcode %d, want OACK", op)
		}
	}
	cl.expectError(codeUndefined)

	lock := newRawClient(t, f.addr)
	lock.send(rq(opRRQ, "hello.txt", "octet"))
	lock.expectData(1, 1, 1)
	waitStats(t, f.srv, func(s Stats) bool { return s.Failed == 2 && s.Completed == 0 })
}

func TestMalformedPacketsAreCountedAndServingGoesOn(t *testing.T) {
	f := newFixture(t, Config{})
	junk := newRawClient(t, f.addr)
	packets := [][]byte{
		{}, {0}, {0, 3, 0, 1, 'x'}, {0, 4, 0, 1}, {0, 5, 0, 0, 0}, {0xff, 0xff},
		[]byte("\x00\x01hello.txt"), rq(opRRQ, "hello.txt", "mail"), rq(opRRQ, "hello.txt"),
		bytes.Repeat([]byte{0, 1}, 3000),
	}
	for _, p := range packets {
		junk.send(p)
	}
	st := waitStats(t, f.srv, func(s Stats) bool { return s.Malformed == uint64(len(packets)) })
	if st.Started != 0 || st.Rejected != 0 {
		t.Errorf("junk was taken for requests: %+v", st)
	}
	if got := newRawClient(t, f.addr).get("hello.txt"); string(got) != "hello, rackboot\n" {
		t.Fatalf("after junk, got %q", got)
	}
}

func TestServeAfterShutdown(t *testing.T) {
	s := New(nil, Config{}, nil)
	s.Shutdown()
	if err := s.ListenAndServe("127.0.0.1:0"); !errors.Is(err, ErrServerClosed) {
		t.Fatalf("Serve after Shutdown = %v, want ErrServerClosed", err)
	}
}

func TestTransfersBeyondTheCapAreRefused(t *testing.T) {
	f := newFixture(t, Config{MaxTransfers: 1})
	holder := newRawClient(t, f.addr)
	holder.send(rq(opRRQ, "big.bin", "octet"))
	holder.expectData(1) // the one transfer allowed, left waiting for its ACK
	late := newRawClient(t, f.addr)
	late.send(rq(opRRQ, "hello.txt", "octet"))
	if msg := late.expectError(codeUndefined); !strings.Contains(msg, "busy") {
		t.Errorf("over the cap: error %q, want busy", msg)
	}
	holder.send([]byte{0, opERROR, 0, 0, 0}) // the client gives up
	waitStats(t, f.srv, func(s Stats) bool { return s.Failed == 1 })
	if got := late.get("hello.txt"); string(got) != "hello, rackboot\n" {
		t.Fatalf("after the slot freed: got %q", got)
	}
}

func TestServeReturnsTheSocketError(t *testing.T) {
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := New(os.DirFS(t.TempDir()), Config{}, nil)
	done := make(chan error, 1)
	go func() { done <- s.Serve(conn) }()
	conn.Close() // not Shutdown: the socket fails under the server
	if err := <-done; !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Serve = %v, want an error wrapping net.ErrClosed", err)
	}
	s.Shutdown()
}

// TestWildcardSocket serves on ":0" (all addresses, like ":69" in
// production) and fetches over 127.0.0.1 through both transfer paths.
func TestWildcardSocket(t *testing.T) {
	dir := t.TempDir()
	want := randomBytes(5000, 3)
	writeFile(t, dir+"/f", want)
	srv, wild := serveOn(t, New(os.DirFS(dir), Config{}, nil), ":0")
	addr := &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: wild.Port}
	if got := newRawClient(t, addr).get("f"); !bytes.Equal(got, want) {
		t.Errorf("lock-step: got %d bytes", len(got))
	}
	cl := newRawClient(t, addr)
	cl.send(rq(opRRQ, "f", "octet", "windowsize", "8"))
	if op, _, _ := cl.recv(); op != opOACK {
		t.Fatalf("got opcode %d, want OACK", op)
	}
	cl.ack(0)
	got := cl.expectData(1, 2, 3, 4, 5, 6, 7, 8)
	cl.ack(8)
	got = append(got, cl.expectData(9, 10)...)
	cl.ack(10)
	if !bytes.Equal(got, want) {
		t.Errorf("windowed: got %d bytes", len(got))
	}
	waitStats(t, srv, func(s Stats) bool { return s.Completed == 2 })
}

// TestShutdownRightAfterServe races Shutdown against Serve starting up:
// Serve must return every time.
func TestShutdownRightAfterServe(t *testing.T) {
	for range 200 {
		conn, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		s := New(os.DirFS(t.TempDir()), Config{}, nil)
		done := make(chan error, 1)
		go func() { done <- s.Serve(conn) }()
		s.Shutdown()
		select {
		case err := <-done:
			if !errors.Is(err, ErrServerClosed) {
				t.Fatalf("Serve = %v, want ErrServerClosed", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Serve did not return after Shutdown")
		}
	}
}
