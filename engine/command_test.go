package engine

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
)

// Every table entry decodes into a command of its own type, and every
// command round-trips through Encode.
func TestCommandTable(t *testing.T) {
	table := commandTable()
	codec := NewCodec()
	for typ, dec := range table {
		cmd, err := dec(bodyVersion, []byte(`{}`))
		if err != nil {
			t.Fatalf("type %d: %v", typ, err)
		}
		if cmd.Type() != typ {
			t.Errorf("table entry %d decodes a command of type %d", typ, cmd.Type())
		}
		b, err := Encode(cmd)
		if err != nil {
			t.Fatal(err)
		}
		again, err := codec.Decode(b)
		if err != nil || again.Type() != typ {
			t.Errorf("type %d: decode(encode) = %v, %v", typ, again, err)
		}
		b2, _ := Encode(again)
		if !bytes.Equal(b, b2) {
			t.Errorf("type %d: %q re-encodes as %q", typ, b, b2)
		}
	}
	// Each range of types (issue 3's 1–22; reserved: installation 23–32,
	// BareMetalHost 33–38, HA 39–44, Kubernetes-style objects 60–69) is
	// used from its start without gaps.
	ranges := [][2]Type{{1, 22}, {23, 32}, {33, 38}, {39, 44}, {60, 69}}
	for _, r := range ranges {
		gap := Type(0)
		for typ := r[0]; typ <= r[1]; typ++ {
			if _, ok := table[typ]; !ok && gap == 0 {
				gap = typ
			} else if ok && gap != 0 {
				t.Errorf("type %d is used but %d before it is not: a number was skipped", typ, gap)
			}
		}
	}
	for typ := range table {
		if !slices.ContainsFunc(ranges, func(r [2]Type) bool { return r[0] <= typ && typ <= r[1] }) {
			t.Errorf("type %d is outside the allotted ranges", typ)
		}
	}
}

func TestDecodeRejects(t *testing.T) {
	codec := NewCodec()
	for name, b := range map[string][]byte{
		"empty":        nil,
		"short":        {1},
		"unknown type": {200, 1, '{', '}'},
		"new version":  {byte(TypeRegisterHost), 9, '{', '}'},
		"bad json":     {byte(TypeDeleteHost), 1, '{'},
		"wrong shape":  {byte(TypeDeleteHost), 1, '[', ']'},
	} {
		if _, err := codec.Decode(b); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}

// An entry that does not decode is an ErrUndecodable result naming its
// index, and changes nothing (package cluster then halts the node).
func TestApplyUndecodable(t *testing.T) {
	m := NewMachine()
	before := m.Clone()
	res := m.Apply(7, []byte{255, 1})
	if !errors.Is(res.Err, ErrUndecodable) || !strings.Contains(res.Err.Error(), "log entry 7") {
		t.Fatalf("result %v, want ErrUndecodable naming entry 7", res.Err)
	}
	if got := m.Clone(); got.Index() != before.Index() {
		t.Errorf("model index moved to %d", got.Index())
	}
}

func FuzzDecode(f *testing.F) {
	for _, c := range []Command{&LeaseCommit{}, &RegisterHost{}, &UpdateInfraEnv{}} {
		b, _ := Encode(c)
		f.Add(b)
	}
	codec := NewCodec()
	f.Fuzz(func(t *testing.T, b []byte) {
		cmd, err := codec.Decode(b)
		if err != nil {
			return
		}
		// A decoded command applies without panicking on an empty model.
		m := NewMachine()
		m.ApplyCommand(1, cmd)
	})
}

// A command written with a field an older rackboot would ignore carries
// body version 2, which today's codec decodes and a version-1-only reader
// (an older rackboot) refuses instead of applying less of it; without such
// a field it stays version 1.
func TestBodyVersion2(t *testing.T) {
	codec := NewCodec()
	vals := []Validation{{ID: "has-inventory"}}
	for _, c := range []struct {
		cmd  Command
		want byte
	}{
		{&RegisterHost{Host: Host{ID: "h"}}, 1},
		{&RegisterHost{Host: Host{ID: "h"}, Event: &Event{Name: "x"}}, 2},
		{&UpdateHost{ID: "h", Event: &Event{Name: "x"}}, 2},
		{&SetHostStatus{ID: "h", Status: "known"}, 1},
		{&SetHostStatus{ID: "h", Status: "known", Validations: &vals}, 2},
		{&PutSecret{Secret: Secret{Name: "s"}}, 1},
		{&PutSecret{Secret: Secret{Name: "s"}, IfRevision: 7}, 2},
	} {
		b, err := Encode(c.cmd)
		if err != nil || b[1] != c.want {
			t.Errorf("%T %+v: version %d, %v; want %d", c.cmd, c.cmd, b[1], err, c.want)
			continue
		}
		if _, err := codec.Decode(b); err != nil {
			t.Errorf("%T: %v", c.cmd, err)
		}
		if _, err := v1[RegisterHost](b[1], b[2:]); c.want == 2 && err == nil {
			t.Errorf("%T: a version-1 reader took a version-2 body", c.cmd)
		}
	}
}
