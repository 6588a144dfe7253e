package cluster

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/hashicorp/raft"
)

// ErrTruncate is wrapped by the errors of TruncateLog.
var ErrTruncate = errors.New("cluster: truncate log")

// Truncated says what TruncateLog removed.
type Truncated struct {
	From, To uint64 // the removed entries, inclusive
}

// TruncateLog removes the raft log entries from index from to the end from
// the stopped node whose data directory is dataDir: the way out for a node
// halted by an entry it cannot decode (ErrHalted names the entry). Entries
// already in a snapshot cannot be removed. The node must not be running
// (its log file is locked while it is).
//
// On a one-voter appliance the removed writes are lost and the node starts
// again from the entry before. In a rack the entry is on every member:
// stop them all and truncate each at the same index (or upgrade to the
// rackboot that wrote it).
func TruncateLog(dataDir string, from uint64) (Truncated, error) {
	dir := filepath.Join(dataDir, "raft")
	logs, err := openLogStore(dir) // recover.go
	if err != nil {
		return Truncated{}, fmt.Errorf("%w: open %s (stop rackbootd first): %w", ErrTruncate, dir, err)
	}
	defer logs.Close()
	first, last, err := logBounds(logs)
	if err != nil {
		return Truncated{}, err
	}
	if from < first || from > last {
		return Truncated{}, fmt.Errorf("%w: entry %d is not in the log (it holds %d to %d)", ErrTruncate, from, first, last)
	}
	snapped, err := snapshotIndex(dir)
	if err != nil {
		return Truncated{}, err
	}
	if from <= snapped {
		return Truncated{}, fmt.Errorf("%w: entries up to %d are in a snapshot and cannot be removed", ErrTruncate, snapped)
	}
	if err := logs.DeleteRange(from, last); err != nil {
		return Truncated{}, fmt.Errorf("%w: %w", ErrTruncate, err)
	}
	return Truncated{From: from, To: last}, nil
}

func logBounds(logs raft.LogStore) (first, last uint64, err error) {
	if first, err = logs.FirstIndex(); err != nil {
		return 0, 0, fmt.Errorf("%w: %w", ErrTruncate, err)
	}
	if last, err = logs.LastIndex(); err != nil {
		return 0, 0, fmt.Errorf("%w: %w", ErrTruncate, err)
	}
	if last == 0 {
		return 0, 0, fmt.Errorf("%w: the log is empty", ErrTruncate)
	}
	return first, last, nil
}

// snapshotIndex is the index of the newest snapshot under dir (0: none).
func snapshotIndex(dir string) (uint64, error) {
	snaps, err := raft.NewFileSnapshotStore(dir, 2, io.Discard)
	if err != nil {
		return 0, fmt.Errorf("%w: snapshots: %w", ErrTruncate, err)
	}
	list, err := snaps.List()
	if err != nil {
		return 0, fmt.Errorf("%w: snapshots: %w", ErrTruncate, err)
	}
	if len(list) == 0 {
		return 0, nil
	}
	return list[0].Index, nil
}
