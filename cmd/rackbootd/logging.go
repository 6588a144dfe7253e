package main

import (
	"io"
	"log/slog"
	"os"
)

// newLogger writes to w (stderr: the journal under systemd) in the format of
// the configuration, at a level a reload can change. Under the journal,
// which stamps every line itself, the time is left out.
func newLogger(w io.Writer, format string, level *slog.LevelVar) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level}
	if os.Getenv("JOURNAL_STREAM") != "" {
		opts.ReplaceAttr = func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}
	}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
