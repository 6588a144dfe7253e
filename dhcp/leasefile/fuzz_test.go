package leasefile

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzDecodeLog feeds arbitrary log bodies to the replay: it must not panic,
// and what it accepts must encode back to the same bytes.
func FuzzDecodeLog(f *testing.F) {
	var seed []byte
	for i := 1; i <= 3; i++ {
		seed = appendRecord(seed, op{lease: lease(i)})
	}
	seed = appendRecord(seed, op{lease: lease(2), del: true})
	f.Add(seed)
	f.Add(seed[:len(seed)-3])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		ops, good, _ := decodeLog(data)
		if good > len(data) {
			t.Fatalf("valid prefix %d longer than input %d", good, len(data))
		}
		var re []byte
		for _, o := range ops {
			re = appendRecord(re, o)
		}
		again, n, err := decodeLog(re)
		if err != nil || n != len(re) || len(again) != len(ops) {
			t.Fatalf("re-encoded log does not decode: %v", err)
		}
		for i := range ops {
			if !reflect.DeepEqual(fmtOp(ops[i]), fmtOp(again[i])) {
				t.Fatalf("op %d: %v != %v", i, fmtOp(ops[i]), fmtOp(again[i]))
			}
		}
	})
}

// FuzzOpen opens a lease log with arbitrary contents: Open must either fail
// cleanly or load, and the loaded log must accept commits.
func FuzzOpen(f *testing.F) {
	seed := []byte(header)
	seed = appendRecord(seed, op{lease: lease(1)})
	f.Add(seed)
	f.Add([]byte("RBLEASE"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, Name), data, 0o640); err != nil {
			t.Fatal(err)
		}
		lf, err := Open(dir, nil)
		if err != nil {
			return
		}
		defer lf.Close()
		commit(t, lf, lease(9))
	})
}

func fmtOp(o op) []any {
	return []any{o.del, o.lease.IP, o.lease.MAC.String(), o.lease.Hostname, o.lease.Expires.UnixNano()}
}

var update = flag.Bool("update", false, "rewrite the seed corpus under testdata/fuzz")

// TestFuzzCorpus keeps the checked-in seed corpus in step (-update rewrites
// it).
func TestFuzzCorpus(t *testing.T) {
	var body []byte
	for i := 1; i <= 3; i++ {
		body = appendRecord(body, op{lease: lease(i)})
	}
	body = appendRecord(body, op{lease: lease(2), del: true})
	seeds := map[string][]byte{
		"FuzzDecodeLog/seed-records":   body,
		"FuzzDecodeLog/seed-truncated": body[:len(body)-5],
		"FuzzOpen/seed-log":            append([]byte(header), body...),
		"FuzzOpen/seed-torn":           append([]byte(header), body[:len(body)-1]...),
		"FuzzOpen/seed-header-only":    []byte(header),
	}
	for name, b := range seeds {
		want := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", b)
		path := filepath.Join("testdata", "fuzz", name)
		if *update {
			os.MkdirAll(filepath.Dir(path), 0o755)
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if got, err := os.ReadFile(path); err != nil || string(got) != want {
			t.Errorf("%s is missing or stale (run with -update): %v", path, err)
		}
	}
}
