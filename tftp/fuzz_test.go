package tftp

import (
	"testing"
	"time"
)

// FuzzServe sends arbitrary bytes as a request to a live server on
// loopback, then checks the server accounted for them and still serves a
// real file. The seed corpus is in testdata/fuzz/FuzzServe.
func FuzzServe(f *testing.F) {
	f.Add(rq(opRRQ, "hello.txt", "octet"))
	f.Add(rq(opRRQ, "big.bin", "octet", "blksize", "1468", "windowsize", "4", "tsize", "0"))
	f.Add(rq(opRRQ, "../../etc/passwd", "netascii"))
	f.Add(rq(opWRQ, "x", "octet"))
	f.Add([]byte{0, 4, 0, 0})
	f.Add([]byte{})
	fx := newFixture(f, Config{Timeout: 200 * time.Millisecond, Retries: 1})
	f.Fuzz(func(t *testing.T, p []byte) {
		before := fx.srv.Stats()
		junk := newRawClient(t, fx.addr)
		junk.send(p)
		if got := newRawClient(t, fx.addr).get("hello.txt"); string(got) != "hello, rackboot\n" {
			t.Fatalf("after %q the server sent %q", p, got)
		}
		after := fx.srv.Stats()
		seen := func(s Stats) uint64 { return s.Malformed + s.Rejected + s.Started }
		if seen(after)-seen(before) != 2 {
			t.Fatalf("packet %q not accounted for: before %+v, after %+v", p, before, after)
		}
		if after.Started-before.Started == 2 { // p started a transfer: end it
			junk.recv()
			junk.send([]byte{0, opERROR, 0, 0, 0})
		}
	})
}
