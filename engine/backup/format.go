package backup

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/rackboot/rackboot/engine"
)

// Format and Version head every backup file; Version changes when the
// layout does. Readers refuse versions they do not know.
const (
	Format  = "rackboot-backup"
	Version = 1
)

// MaxSize bounds the body a reader accepts (the model lives in memory).
const MaxSize = 1 << 30

// maxHeader bounds the header line.
const maxHeader = 4 << 10

// ErrBackup is wrapped by every error reading a backup file.
var ErrBackup = errors.New("not a valid rackboot backup")

// Meta describes a backup: where and when it was taken and the state it
// holds.
type Meta struct {
	Format  string    `json:"format"`
	Version int       `json:"version"`
	Created time.Time `json:"created"`
	// Node is the appliance that served the backup.
	Node string `json:"node,omitempty"`
	// Index is the raft index of the last command the state holds.
	Index uint64 `json:"index"`
	// Size and SHA256 are the body's length and checksum (hex).
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Encode returns the backup file of m: the header (meta's Node and
// Created, the rest computed), then m's snapshot.
func Encode(meta Meta, m *engine.Model) ([]byte, error) {
	var body bytes.Buffer
	if _, err := m.WriteTo(&body); err != nil {
		return nil, fmt.Errorf("backup: write the state: %w", err)
	}
	sum := sha256.Sum256(body.Bytes())
	meta.Format, meta.Version, meta.Index = Format, Version, m.Index()
	meta.Size, meta.SHA256 = int64(body.Len()), hex.EncodeToString(sum[:])
	head, err := json.Marshal(meta)
	if err != nil {
		return nil, fmt.Errorf("backup: header: %w", err)
	}
	out := make([]byte, 0, len(head)+1+body.Len())
	out = append(append(out, head...), '\n')
	return append(out, body.Bytes()...), nil
}

// Read reads a whole backup file from r, checks its format, version, size
// and checksum, and only then decodes the state. Any failure wraps
// ErrBackup and says what is wrong.
func Read(r io.Reader) (Meta, *engine.Model, error) {
	meta, body, err := readChecked(r)
	if err != nil {
		return Meta{}, nil, err
	}
	m, err := engine.ReadModel(bytes.NewReader(body))
	if err != nil {
		return Meta{}, nil, fmt.Errorf("%w: the state does not decode: %w", ErrBackup, err)
	}
	if m.Index() != meta.Index {
		return Meta{}, nil, fmt.Errorf("%w: the state is at index %d, the header says %d", ErrBackup, m.Index(), meta.Index)
	}
	return meta, m, nil
}

// readChecked returns the header and the body once both are checked.
func readChecked(r io.Reader) (Meta, []byte, error) {
	br := bufio.NewReaderSize(r, maxHeader)
	line, err := br.ReadSlice('\n')
	if err != nil {
		return Meta{}, nil, fmt.Errorf("%w: no header line (%v)", ErrBackup, err)
	}
	var meta Meta
	if err := json.Unmarshal(line, &meta); err != nil || meta.Format != Format {
		return Meta{}, nil, fmt.Errorf("%w: the file does not start with a %s header", ErrBackup, Format)
	}
	if meta.Version != Version {
		return Meta{}, nil, fmt.Errorf("%w: format version %d, this rackboot reads version %d", ErrBackup, meta.Version, Version)
	}
	if meta.Size < 0 || meta.Size > MaxSize {
		return Meta{}, nil, fmt.Errorf("%w: body of %d bytes (at most %d)", ErrBackup, meta.Size, MaxSize)
	}
	body := make([]byte, meta.Size)
	if n, err := io.ReadFull(br, body); err != nil {
		return Meta{}, nil, fmt.Errorf("%w: truncated: %d of %d bytes of state", ErrBackup, n, meta.Size)
	}
	if n, _ := io.Copy(io.Discard, io.LimitReader(br, 1)); n > 0 {
		return Meta{}, nil, fmt.Errorf("%w: bytes after the %d bytes of state", ErrBackup, meta.Size)
	}
	sum := sha256.Sum256(body)
	if hex.EncodeToString(sum[:]) != meta.SHA256 {
		return Meta{}, nil, fmt.Errorf("%w: checksum mismatch (the file is corrupted)", ErrBackup)
	}
	return meta, body, nil
}
