package vip

import (
	"bytes"
	"net"
	"net/netip"
	"testing"
)

// FuzzParseARPRequest: any frame is refused or parsed without panicking,
// and what parses answers with a well-formed reply to its sender.
func FuzzParseARPRequest(f *testing.F) {
	mac := net.HardwareAddr{0x52, 0x54, 0x00, 0x12, 0x34, 0x56}
	ip := netip.MustParseAddr("10.99.0.1")
	f.Add(garpFrame(opRequest, mac, ip))
	f.Add(garpFrame(opReply, mac, ip))
	f.Add(replyFrame(arpRequest{sha: mac, spa: netip.MustParseAddr("10.99.0.50")}, mac, ip))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, frame []byte) {
		req, ok := parseARPRequest(frame)
		if !ok {
			return
		}
		r := replyFrame(req, mac, ip)
		if len(r) != 42 || !bytes.Equal(r[:6], req.sha) || !bytes.Equal(r[32:38], req.sha) {
			t.Fatalf("reply %x to %+v", r, req)
		}
		if _, again := parseARPRequest(r); again {
			t.Fatal("a reply parses as a request")
		}
	})
}

// TestParseARPRequest: a request for the address parses; a reply and a
// short frame do not.
func TestParseARPRequest(t *testing.T) {
	mac := net.HardwareAddr{0x52, 0x54, 0x00, 0x12, 0x34, 0x56}
	ip := netip.MustParseAddr("10.99.0.1")
	req, ok := parseARPRequest(garpFrame(opRequest, mac, ip))
	if !ok || req.tpa != ip || req.spa != ip || !bytes.Equal(req.sha, mac) {
		t.Fatalf("request: %+v %v", req, ok)
	}
	if _, ok := parseARPRequest(garpFrame(opReply, mac, ip)); ok {
		t.Fatal("a reply parsed as a request")
	}
	if _, ok := parseARPRequest(garpFrame(opRequest, mac, ip)[:41]); ok {
		t.Fatal("a short frame parsed")
	}
}
