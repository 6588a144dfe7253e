package engine

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A fenced command round-trips through the log form and applies only in
// its own term.
func TestFenced(t *testing.T) {
	const id = "11111111-1111-4111-8111-111111111111"
	cmd := &Fenced{Term: 7, Cmd: &CreateInfraEnv{InfraEnv: InfraEnv{ID: id, Name: "x"}}}
	cmd.SetTime(time.Unix(100, 0).UTC())
	data, err := Encode(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if Type(data[0]) != TypeFenced {
		t.Fatalf("type byte %d", data[0])
	}
	m := NewMachine()
	res := m.ApplyEntry(1, 8, data)
	if !errors.Is(res.Err, ErrConflict) {
		t.Fatalf("term 8 applied a term-7 command: %v", res.Err)
	}
	m.Read(func(m *Model) {
		if _, ok := m.InfraEnv(id); ok {
			t.Error("a stale fenced command changed the model")
		}
	})
	res = m.ApplyEntry(2, 7, data)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	ie, ok := res.Value.(InfraEnv)
	if !ok || ie.ID != id || !ie.CreatedAt.Equal(time.Unix(100, 0)) {
		t.Errorf("result %#v", res.Value)
	}
}

func TestFencedRejectsNesting(t *testing.T) {
	inner := &Fenced{Term: 1, Cmd: &DeleteInfraEnv{ID: "x"}}
	if _, err := Encode(&Fenced{Term: 1, Cmd: inner}); err == nil {
		t.Error("encoded a fenced command inside a fenced command")
	}
	body := append([]byte{byte(TypeFenced), bodyVersion}, `{"term":1,"cmd":"JwF7fQ=="}`...) // cmd: type 39, {}
	if _, err := NewCodec().Decode(body); err == nil {
		t.Error("decoded a fenced command inside a fenced command")
	}
}

// termStore is a Store that reports a raft term.
type termStore struct {
	Store
	term   uint64
	leader bool
	got    Command
}

func (s *termStore) LeaderTerm() (uint64, bool) { return s.term, s.leader }

func (s *termStore) Apply(_ context.Context, cmd Command) (any, error) {
	s.got = cmd
	return nil, nil
}

func TestFence(t *testing.T) {
	st := &termStore{term: 4, leader: true}
	f := Fence(st)
	if _, err := f.Apply(context.Background(), &DeleteInfraEnv{ID: "x"}); err != nil {
		t.Fatal(err)
	}
	if fc, ok := st.got.(*Fenced); !ok || fc.Term != 4 {
		t.Fatalf("applied %#v, want Fenced term 4", st.got)
	}
	if term, ok := f.(Termer).LeaderTerm(); term != 4 || !ok {
		t.Errorf("LeaderTerm = %d %v", term, ok)
	}
	st.term = 5
	if _, ok := f.(Termer).LeaderTerm(); ok {
		t.Error("fenced store still leads after the term changed")
	}
	var plain Store = struct{ Store }{}
	if Fence(plain) != plain {
		t.Error("Fence wrapped a store without terms")
	}
}
