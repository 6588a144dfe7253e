package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
	"github.com/rackboot/rackboot/cmd/rackbootctl/output"
)

// deleted is shown in the STATUS column of a row whose object is gone.
const deleted = "deleted"

// poll fetches every interval and hands what it found to tr, which
// prints what is new, changed or gone. Network errors and 5xx answers
// are reported and polling goes on; a 4xx answer (bad token, gone
// infra-env) ends the watch. It returns nil when ctx is done.
func (a *app) poll(ctx context.Context, fetch func(context.Context) (fetched, error), interval time.Duration, tr *tracker) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		got, err := fetch(ctx)
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil && isAnswer(err):
			return err
		case err != nil:
			fmt.Fprintf(a.env.Stderr, "warning: %v (retrying)\n", err)
		default:
			if err := tr.sync(got.tab, got.items); err != nil {
				return err
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// isAnswer reports whether err is a final answer of the server: a 4xx
// or an undecodable body. Transport errors and 5xx (a restarting or
// leaderless server) are worth retrying.
func isAnswer(err error) bool {
	var ae *client.APIError
	if errors.As(err, &ae) {
		return ae.Status < 500
	}
	return errors.Is(err, client.ErrProtocol)
}

// sink prints the changes a watch sees.
type sink interface {
	// ready is called once the watch is under way (a table's header).
	ready() error
	// emit prints one change of type typ (client.WatchAdded, ...).
	emit(typ string, row []string, obj any) error
}

// batcher is a sink that can hold what it is given and print it at
// once (a poll's changes, lined up with each other).
type batcher interface {
	hold()
	release() error
}

// tableSink prints changed rows under one header.
type tableSink struct {
	p       *output.Printer
	header  []string
	printed bool
	held    bool
	rows    [][]string // held rows
}

func (s *tableSink) ready() error {
	if s.printed || s.held {
		return nil
	}
	s.printed = true
	return s.p.Print(output.Table{Header: s.header}, true)
}

func (s *tableSink) emit(_ string, row []string, _ any) error {
	if s.held {
		s.rows = append(s.rows, row)
		return nil
	}
	if err := s.ready(); err != nil {
		return err
	}
	return s.p.Print(output.Table{Header: s.header, Rows: [][]string{row}}, false)
}

func (s *tableSink) hold() { s.held = true }

// release prints the held rows, under the header if it is not out yet.
func (s *tableSink) release() error {
	s.held = false
	rows := s.rows
	s.rows = nil
	header := !s.printed
	s.printed = true
	if !header && len(rows) == 0 {
		return nil
	}
	return s.p.Print(output.Table{Header: s.header, Rows: rows}, header)
}

// docSink prints one JSON line or one YAML document per change: the
// object, or {"type": ..., "object": ...} with events set.
type docSink struct {
	w      io.Writer
	yaml   bool
	events bool
}

func (s *docSink) ready() error { return nil }

func (s *docSink) emit(typ string, _ []string, obj any) error {
	v := obj
	if s.events {
		v = struct {
			Type   string `json:"type"`
			Object any    `json:"object"`
		}{typ, obj}
	}
	if s.yaml {
		if _, err := io.WriteString(s.w, "---\n"); err != nil {
			return err
		}
		return output.WriteYAML(s.w, v)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding JSON: %w", err)
	}
	_, err = s.w.Write(append(b, '\n'))
	return err
}

// newSink is the sink of format f for tables with header.
func newSink(w io.Writer, f output.Format, header []string, events bool) sink {
	if f.Tabular() {
		return &tableSink{p: output.NewPrinter(w), header: header}
	}
	return &docSink{w: w, yaml: f == output.FormatYAML, events: events}
}

// tracked is what a watch last printed of one object.
type tracked struct {
	sig string
	row []string
	obj any
}

// tracker remembers what a watch printed, so that it prints each object
// once per change, and a deleted object once more.
type tracker struct {
	out    sink
	status int  // the STATUS column, -1 if none
	doc    bool // changes are judged by the whole object, not the row
	last   map[string]tracked
	order  []string
}

func newTracker(out sink, header []string, f output.Format) *tracker {
	return &tracker{out: out, status: slices.Index(header, "STATUS"), doc: !f.Tabular(),
		last: map[string]tracked{}}
}

// upsert prints obj (row) if it is new or changed since last printed.
func (t *tracker) upsert(key string, row []string, obj any) error {
	sig := strings.Join(row, "\x00")
	if t.doc {
		b, err := json.Marshal(obj)
		if err != nil {
			return fmt.Errorf("encoding JSON: %w", err)
		}
		sig = string(b)
	}
	old, was := t.last[key]
	if was && old.sig == sig {
		return nil
	}
	typ := client.WatchModified
	if !was {
		typ = client.WatchAdded
		t.order = append(t.order, key)
	}
	t.last[key] = tracked{sig: sig, row: row, obj: obj}
	return t.out.emit(typ, row, obj)
}

// remove prints the last state of key, marked deleted, and forgets it.
func (t *tracker) remove(key string) error {
	old, was := t.last[key]
	if !was {
		return nil
	}
	delete(t.last, key)
	t.order = slices.DeleteFunc(t.order, func(k string) bool { return k == key })
	if !t.doc && t.status < 0 {
		return nil // a table without STATUS cannot show it
	}
	row := slices.Clone(old.row)
	if t.status >= 0 && t.status < len(row) {
		row[t.status] = deleted
	}
	return t.out.emit(client.WatchDeleted, row, old.obj)
}

// sync prints what changed between the last printed state and tab (one
// poll's objects, items parallel to tab.Keys): new and changed objects in
// tab's order, then the ones that vanished.
func (t *tracker) sync(tab output.Table, items []any) (err error) {
	if b, ok := t.out.(batcher); ok {
		b.hold()
		defer func() {
			if rerr := b.release(); err == nil {
				err = rerr
			}
		}()
	}
	if err := t.out.ready(); err != nil {
		return err
	}
	now := make(map[string]bool, len(tab.Keys))
	for i, k := range tab.Keys {
		now[k] = true
		var obj any
		if i < len(items) {
			obj = items[i]
		}
		if err := t.upsert(k, tab.Rows[i], obj); err != nil {
			return err
		}
	}
	for _, k := range slices.Clone(t.order) {
		if !now[k] {
			if err := t.remove(k); err != nil {
				return err
			}
		}
	}
	return nil
}

// watch is get -w: hosts follow the server's watch streams, the rest
// (and hosts on a server without the stream) poll.
func (a *app) watch(ctx context.Context, c *client.Client, res, id string, o getOpts, f output.Format,
	fetch func(context.Context) (fetched, error)) error {
	wide := f == output.FormatWide
	var header []string
	switch res {
	case resCluster:
		header = output.Clusters(nil, wide, a.env.Now()).Header
	case resInfraEnv:
		header = output.InfraEnvs(nil, wide, a.env.Now()).Header
	case resHost:
		header = hostTable(nil, f).Header
	default:
		header = output.Events(nil).Header
	}
	out := newSink(a.env.Stdout, f, header, o.watchEvents)
	if f == output.FormatProgress && isTerminal(a.env.Stdout) {
		out = newLiveSink(a.env.Stdout)
	}
	tr := newTracker(out, header, f)
	poll := func() error { return a.poll(ctx, fetch, o.interval, tr) }
	if res != resHost {
		return poll()
	}
	hw := &hostWatch{tr: tr, format: f, only: o.infraEnv, interval: o.interval,
		keep: func(h *client.Host) bool { return o.cluster == "" || h.ClusterID == o.cluster }}
	if id != "" {
		h, err := a.findHost(ctx, c, id, o.infraEnv)
		if err != nil {
			return err
		}
		hw.only = h.InfraEnvID
		hw.keep = func(x *client.Host) bool { return x.ID == h.ID }
	}
	return a.watchHosts(ctx, c, hw, poll)
}
