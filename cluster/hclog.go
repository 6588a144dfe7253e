package cluster

import (
	"bytes"
	"context"
	"log/slog"

	"github.com/hashicorp/go-hclog"
)

// newHCLog returns an hclog.Logger (what raft takes) that writes each line
// to log at the line's level.
func newHCLog(log *slog.Logger) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{
		Name:        "raft",
		Level:       hclog.Info,
		Output:      slogWriter{log: log},
		DisableTime: true,
	})
}

// slogWriter turns hclog's "[LEVEL] name: message: k=v" lines into slog
// records.
type slogWriter struct {
	log *slog.Logger
}

func (w slogWriter) Write(p []byte) (int, error) {
	level, line := hclogLevel(bytes.TrimSpace(p))
	w.log.Log(context.Background(), level, string(line), "component", "raft")
	return len(p), nil
}

// hclogLevel splits hclog's level prefix off line.
func hclogLevel(line []byte) (slog.Level, []byte) {
	end := bytes.IndexByte(line, ']')
	if len(line) == 0 || line[0] != '[' || end < 0 {
		return slog.LevelInfo, line
	}
	rest := bytes.TrimSpace(line[end+1:])
	switch string(line[1:end]) {
	case "ERROR":
		return slog.LevelError, rest
	case "WARN":
		return slog.LevelWarn, rest
	case "DEBUG", "TRACE":
		return slog.LevelDebug, rest
	}
	return slog.LevelInfo, rest
}
