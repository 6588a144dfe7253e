package backup_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/rackboot/rackboot/engine/backup"
)

// FuzzRead feeds Read whole files and files whose header is right for a
// fuzzed body (so the body reaches the state decoder): nothing panics,
// and what reads back writes the same state again.
func FuzzRead(f *testing.F) {
	good := take(f, stateful(f))
	f.Add(good, false)
	f.Add(good[bytes.IndexByte(good, '\n')+1:], true)
	f.Add([]byte(`{"format":"rackboot-model","version":1,"index":3}`+"\n"+`{"k":"event","v":{"seq":9}}`), true)
	f.Fuzz(func(t *testing.T, b []byte, wrap bool) {
		if wrap {
			sum := sha256.Sum256(b)
			head, _ := json.Marshal(backup.Meta{Format: backup.Format, Version: backup.Version, Index: indexOf(b), Size: int64(len(b)), SHA256: hex.EncodeToString(sum[:])})
			b = append(append(head, '\n'), b...)
		}
		meta, m, err := backup.Read(bytes.NewReader(b))
		if err != nil {
			return
		}
		again, err := backup.Encode(meta, m)
		if err != nil {
			t.Fatal(err)
		}
		if _, m2, err := backup.Read(bytes.NewReader(again)); err != nil || m2.Index() != m.Index() {
			t.Fatalf("a state read back does not read again: %v", err)
		}
	})
}

// indexOf is the index a fuzzed body's first line claims, so that the
// header agrees with it.
func indexOf(body []byte) uint64 {
	var h struct{ Index uint64 }
	line, _, _ := bytes.Cut(body, []byte("\n"))
	_ = json.Unmarshal(line, &h)
	return h.Index
}
