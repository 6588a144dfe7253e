package cluster

import (
	"bytes"
	"testing"
)

// readFrame parses what peers send: it never panics and accepts only a
// length-prefixed JSON request within the size limit.
func FuzzReadFrame(f *testing.F) {
	var good bytes.Buffer
	_ = writeFrame(&good, rpcRequest{Op: opApply, Data: []byte{3, 1, '{', '}'}, Tag: make([]byte, tagLen)})
	f.Add(good.Bytes())
	f.Add([]byte{0, 0, 0, 2, '{', '}'})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{0, 0, 0, 5, 'n', 'u', 'l', 'l', 'x'})
	f.Fuzz(func(t *testing.T, b []byte) {
		var req rpcRequest
		err := readFrame(bytes.NewReader(b), &req)
		if err != nil {
			return
		}
		if n := int(b[0])<<24 | int(b[1])<<16 | int(b[2])<<8 | int(b[3]); n > maxFrame {
			t.Fatalf("accepted a frame of %d bytes", n)
		}
	})
}

// A forwarded request from a member whose command does not decode is
// refused before it reaches the log (it would panic every FSM).
func TestApplyRefusesUndecodable(t *testing.T) {
	r := newRack(t, 3)
	r.start(r.nodes...)
	ld := r.leader()
	resp := ld.st.handle(r.followers(ld)[0].id, rpcRequest{Op: opApply, Data: []byte{200, 1, '{', '}'}})
	if resp.Code != codeRefused {
		t.Errorf("undecodable command: %+v", resp)
	}
	resp = ld.st.handle("n9", rpcRequest{Op: opApply, Data: []byte{3, 1, '{', '}'}})
	if resp.Code != codeRefused {
		t.Errorf("apply from a non-member: %+v", resp)
	}
	resp = ld.st.handle("n9", rpcRequest{Op: opJoin, ID: "n8", Addr: "127.0.0.1:1"})
	if resp.Code != codeRefused {
		t.Errorf("join of another node by a non-member: %+v", resp)
	}
}
