package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"syscall"

	slogjournal "github.com/systemd/slog-journal"
)

// newLogger writes to w (stderr: the journal under systemd) in the format of
// the configuration, at a level a reload can change. When w is the stream
// systemd connected to the journal, records go to the journal natively
// instead (newJournalHandler): each attribute becomes a field of its own. On
// a plain stream under the journal, which stamps every line itself, the
// time is left out.
func newLogger(w io.Writer, format string, level *slog.LevelVar) *slog.Logger {
	if f, ok := w.(*os.File); ok && isJournalStream(f) {
		if h, err := newJournalHandler(level); err == nil {
			return slog.New(h)
		}
	}
	opts := &slog.HandlerOptions{Level: level}
	if os.Getenv("JOURNAL_STREAM") != "" {
		opts.ReplaceAttr = dropTime
	}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

func dropTime(groups []string, a slog.Attr) slog.Attr {
	if len(groups) == 0 && a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}

// isJournalStream reports whether f is the journal stream systemd gave the
// service: $JOURNAL_STREAM holds its device and inode ("dev:ino").
func isJournalStream(f *os.File) bool {
	want := os.Getenv("JOURNAL_STREAM")
	if want == "" {
		return false
	}
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && fmt.Sprintf("%d:%d", st.Dev, st.Ino) == want
}

// journalHandler sends each record to the journal with its attributes as
// fields (mac=... as MAC=..., a group's as GROUP_KEY=...), and a MESSAGE
// that still reads as the text format does without the journal (the
// message, then key=value for each attribute), so `journalctl -u rackbootd`
// shows what it always showed and `journalctl MAC=...` or `-o json` the
// fields.
type journalHandler struct {
	journal slog.Handler
	level   slog.Leveler
	ops     []func(slog.Handler) slog.Handler // WithAttrs/WithGroup, replayed on the text rendering
}

func newJournalHandler(level slog.Leveler) (*journalHandler, error) {
	h, err := slogjournal.NewHandler(&slogjournal.Options{
		Level:        level,
		ReplaceAttr:  func(_ []string, a slog.Attr) slog.Attr { a.Key = journalField(a.Key); return a },
		ReplaceGroup: journalField,
	})
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	return &journalHandler{journal: h, level: level}, nil
}

// journalField turns a slog key into a journal field name, which only
// upper-case letters, digits and "_" may make up and which may not start
// with "_" (those are the journal's own) or a digit.
func journalField(key string) string {
	b := []byte(strings.ToUpper(key))
	for i, c := range b {
		if (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			b[i] = '_'
		}
	}
	name := strings.TrimLeft(string(b), "_")
	if name == "" || name[0] <= '9' {
		name = "F_" + name
	}
	return name
}

func (h *journalHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.journal.Enabled(ctx, l)
}

func (h *journalHandler) Handle(ctx context.Context, r slog.Record) error {
	var buf bytes.Buffer
	var text slog.Handler = slog.NewTextHandler(&buf, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && (a.Key == slog.TimeKey || a.Key == slog.LevelKey || a.Key == slog.MessageKey) {
				return slog.Attr{}
			}
			return a
		},
	})
	for _, op := range h.ops {
		text = op(text)
	}
	if err := text.Handle(ctx, r); err != nil {
		return err
	}
	msg := r.Message
	if attrs := strings.TrimSpace(buf.String()); attrs != "" {
		msg += " " + attrs
	}
	out := slog.NewRecord(r.Time, r.Level, msg, r.PC)
	r.Attrs(func(a slog.Attr) bool { out.AddAttrs(a); return true })
	return h.journal.Handle(ctx, out)
}

func (h *journalHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return h.with(h.journal.WithAttrs(attrs), func(t slog.Handler) slog.Handler { return t.WithAttrs(attrs) })
}

func (h *journalHandler) WithGroup(name string) slog.Handler {
	return h.with(h.journal.WithGroup(name), func(t slog.Handler) slog.Handler { return t.WithGroup(name) })
}

func (h *journalHandler) with(journal slog.Handler, op func(slog.Handler) slog.Handler) *journalHandler {
	return &journalHandler{journal: journal, level: h.level, ops: append(h.ops[:len(h.ops):len(h.ops)], op)}
}
