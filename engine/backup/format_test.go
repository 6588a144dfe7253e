package backup_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/backup"
	"github.com/rackboot/rackboot/engine/enginetest"
)

// stateful returns a store holding an infra-env and a sealed secret.
func stateful(t testing.TB) *enginetest.Store {
	t.Helper()
	st := enginetest.NewStore()
	sealer, err := engine.NewSealer(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := sealer.Seal("bmc-secret", "password", []byte("hunter2"))
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []engine.Command{
		&engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: "11111111-1111-4111-8111-111111111111", Name: "ie"}},
		&engine.PutSecret{Secret: engine.Secret{Name: "bmc-secret", Data: map[string][]byte{"password": sealed}}},
	} {
		if _, err := st.Apply(context.Background(), cmd); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

func take(t testing.TB, st engine.Store) []byte {
	t.Helper()
	b, _, err := backup.Take(context.Background(), st, "n1", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A backup read back holds the same state, and the sealed secret is still
// sealed in the file.
func TestRoundTrip(t *testing.T) {
	st := stateful(t)
	b := take(t, st)
	if bytes.Contains(b, []byte("hunter2")) {
		t.Error("the backup holds a secret in clear")
	}
	meta, m, err := backup.Read(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := enginetest.Dump(m), st.Dump(); !bytes.Equal(got, want) {
		t.Errorf("restored state:\n%s\nwant\n%s", got, want)
	}
	if meta.Node != "n1" || meta.Version != backup.Version || meta.Index != m.Index() || meta.Index == 0 {
		t.Errorf("meta %+v", meta)
	}
}

// A damaged file is refused with an error that says what is wrong.
func TestRefused(t *testing.T) {
	b := take(t, stateful(t))
	head := bytes.IndexByte(b, '\n') + 1
	flipped := bytes.Clone(b)
	flipped[head+len(b[head:])/2] ^= 0x20
	newer := bytes.Replace(b, []byte(`"version":1`), []byte(`"version":2`), 1)
	cases := map[string]struct {
		file []byte
		want string
	}{
		"empty":             {nil, "no header line"},
		"not a backup":      {[]byte("{\"hello\":1}\nxx"), "does not start with a rackboot-backup header"},
		"a raft snapshot":   {b[head:], "does not start with a rackboot-backup header"},
		"newer version":     {newer, "format version 2"},
		"truncated":         {b[:len(b)-10], "truncated"},
		"truncated at line": {b[:bytes.LastIndexByte(b[:len(b)-1], '\n')+1], "truncated"},
		"header only":       {b[:head], "truncated: 0 of"},
		"a flipped bit":     {flipped, "checksum mismatch"},
		"bytes appended":    {append(bytes.Clone(b), "more"...), "bytes after"},
	}
	for name, c := range cases {
		_, m, err := backup.Read(bytes.NewReader(c.file))
		if !errors.Is(err, backup.ErrBackup) || !strings.Contains(err.Error(), c.want) || m != nil {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}

// The endpoint serves a backup to GET only, and says when the store has
// no consistent state to give.
func TestHandler(t *testing.T) {
	st := stateful(t)
	srv := httptest.NewServer(backup.Handler{Store: st, Node: "n1"})
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, _, err := backup.Read(resp.Body); err != nil || resp.StatusCode != 200 {
		t.Errorf("GET: %s, %v", resp.Status, err)
	}
	resp2, err := http.Post(srv.URL, "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp2.Body.Close()
	if resp2.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %s", resp2.Status)
	}
	down := httptest.NewServer(backup.Handler{Store: noLeader{st}})
	defer down.Close()
	resp3, err := http.Get(down.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp3.Body.Close()
	if resp3.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("without a leader: %s", resp3.Status)
	}
}

type noLeader struct{ *enginetest.Store }

func (noLeader) Barrier(context.Context) error {
	return fmt.Errorf("%w: no leader", engine.ErrNotLeader)
}
