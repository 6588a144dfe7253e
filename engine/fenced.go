package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Fenced wraps a command issued by a controller while its node led in raft
// term Term. It applies only from a log entry of that term: a deposed
// leader's late write (forwarded to the new leader, or appended in a term
// that ended) fails with ErrConflict ("stale term") and changes nothing.
type Fenced struct {
	Term uint64
	Cmd  Command
}

// fencedBody is Fenced's log form: the term and the wrapped command
// encoded as Encode does.
type fencedBody struct {
	Term uint64 `json:"term"`
	Cmd  []byte `json:"cmd"`
}

// Type implements Command.
func (f *Fenced) Type() Type { return TypeFenced }

// Time is the wrapped command's time.
func (f *Fenced) Time() time.Time {
	if f.Cmd == nil {
		return time.Time{}
	}
	return f.Cmd.Time()
}

// SetTime stamps the wrapped command.
func (f *Fenced) SetTime(t time.Time) {
	if f.Cmd != nil {
		f.Cmd.SetTime(t)
	}
}

func (f *Fenced) apply(tx *Tx) (any, error) {
	if !tx.dry && tx.term != f.Term {
		return nil, conflict("stale term: command type %d was issued in raft term %d and reached the log in term %d", f.Cmd.Type(), f.Term, tx.term)
	}
	return f.Cmd.apply(tx)
}

// MarshalJSON encodes the wrapped command with Encode.
func (f *Fenced) MarshalJSON() ([]byte, error) {
	if f.Cmd == nil {
		return nil, fmt.Errorf("fenced command without a command")
	}
	if _, nested := f.Cmd.(*Fenced); nested {
		return nil, fmt.Errorf("fenced command wrapping a fenced command")
	}
	inner, err := Encode(f.Cmd)
	if err != nil {
		return nil, err
	}
	return json.Marshal(fencedBody{Term: f.Term, Cmd: inner})
}

// decodeFenced decodes a Fenced body and its wrapped command.
func (c *Codec) decodeFenced(version byte, body []byte) (Command, error) {
	if version != bodyVersion {
		return nil, fmt.Errorf("body version %d, want %d", version, bodyVersion)
	}
	var b fencedBody
	if err := json.Unmarshal(body, &b); err != nil {
		return nil, err
	}
	if len(b.Cmd) > 0 && Type(b.Cmd[0]) == TypeFenced {
		return nil, fmt.Errorf("fenced command wrapping a fenced command")
	}
	inner, err := c.Decode(b.Cmd)
	if err != nil {
		return nil, err
	}
	return &Fenced{Term: b.Term, Cmd: inner}, nil
}

// Termer is implemented by stores replicated with raft (package cluster).
// LeaderTerm returns the raft term in which this node leads, and false
// when it does not lead.
type Termer interface {
	LeaderTerm() (term uint64, leader bool)
}

// Fence returns a Store whose Apply wraps every command in Fenced with the
// term in which st's node leads now. Controllers call it when they start
// (under WhileLeader), so that their writes fail once another leader has
// been elected. A store that is not a Termer (an in-memory store) is
// returned as it is; a node that does not lead gets a store whose writes
// all fail as stale.
func Fence(st Store) Store {
	t, ok := st.(Termer)
	if !ok {
		return st
	}
	term, _ := t.LeaderTerm()
	return fencedStore{Store: st, term: term}
}

// fencedStore applies every command as a Fenced one.
type fencedStore struct {
	Store
	term uint64
}

func (s fencedStore) Apply(ctx context.Context, cmd Command) (any, error) {
	if _, ok := cmd.(*Fenced); !ok {
		cmd = &Fenced{Term: s.term, Cmd: cmd}
	}
	return s.Store.Apply(ctx, cmd)
}

// LeaderTerm is the term the store fences with, and whether the
// underlying store still leads in it.
func (s fencedStore) LeaderTerm() (uint64, bool) {
	term, leader := s.Store.(Termer).LeaderTerm()
	return s.term, leader && term == s.term
}
