package api

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rackboot/rackboot/cluster"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/enginetest"
	"github.com/rackboot/rackboot/engine/models"
)

// newKeyEnv is an API whose key ring is the one kept in store, as
// rackbootd gets it (engine.LoadKeyRing).
func newKeyEnv(t *testing.T, store engine.Store) *env {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	keys, err := engine.LoadKeyRing(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	h, err = New(Options{
		Store: store, AdminToken: testAdmin, Keys: keys, ServiceURL: srv.URL,
		Log: slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, store: store, srv: srv, logs: logs, keys: keys, seen: &syncBuffer{}}
}

func openRaft(t *testing.T, dir string) *cluster.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := cluster.Open(ctx, cluster.Config{DataDir: dir, HeartbeatTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// kidOf reads the kid from a JWT's header.
func kidOf(t *testing.T, tok string) string {
	t.Helper()
	head, _, ok := strings.Cut(tok, ".")
	if !ok {
		t.Fatalf("not a JWT: %.20q", tok)
	}
	raw, err := base64.RawURLEncoding.DecodeString(head)
	if err != nil {
		t.Fatal(err)
	}
	var h struct {
		KID string `json:"kid"`
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		t.Fatal(err)
	}
	return h.KID
}

func (e *env) signingKeys() models.SigningKeys {
	e.t.Helper()
	var sk models.SigningKeys
	e.must(adminCred(), 200, "GET", "/signing-keys", nil).decode(e.t, &sk)
	return sk
}

// stored is the ring in e's store, read the way rackbootd reads it.
func (e *env) stored() models.SigningKeys {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	k, err := engine.LoadKeyRing(ctx, e.store)
	if err != nil {
		e.t.Fatal(err)
	}
	return models.SigningKeys{ActiveKID: k.ActiveKID(), KIDs: k.KIDs()}
}

// noKeyMaterial fails when a response body or log line holds a PEM block
// or the base64 of any key the ring held (ringPEM: Marshal's output).
func (e *env) noKeyMaterial(ringPEM []byte) {
	e.t.Helper()
	var w struct {
		Keys []struct{ PEM string } `json:"keys"`
	}
	if err := json.Unmarshal(ringPEM, &w); err != nil || len(w.Keys) == 0 {
		e.t.Fatalf("marshalled ring: %v", err)
	}
	for name, text := range map[string]string{"responses": e.seen.String(), "logs": e.logs.String()} {
		if strings.Contains(text, "PRIVATE KEY") || strings.Contains(text, "-----BEGIN") {
			e.t.Errorf("%s contain a PEM block", name)
		}
		for _, k := range w.Keys {
			b, _ := pem.Decode([]byte(k.PEM))
			if b == nil {
				e.t.Fatal("marshalled ring without PEM")
			}
			der := base64.StdEncoding.EncodeToString(b.Bytes)
			if strings.Contains(text, der[20:60]) {
				e.t.Errorf("%s contain key bytes", name)
			}
		}
	}
}

// rotateRetire runs the operator's rotation: rotate, old tokens still
// verify, new tokens carry the new kid, retire the old kid, old tokens are
// refused; it returns the ring then held.
func rotateRetire(t *testing.T, e *env) models.SigningKeys {
	ie := e.createInfraEnv("")
	hosts := "/infra-envs/" + ie.ID + "/hosts"
	before := e.signingKeys()
	if before.ActiveKID == "" || !slices.Equal(before.KIDs, []string{before.ActiveKID}) {
		t.Fatalf("fresh ring: %+v", before)
	}
	oldTok := e.agentConfig(ie.ID).Token
	if kidOf(t, oldTok) != before.ActiveKID {
		t.Fatalf("token kid %s, active %s", kidOf(t, oldTok), before.ActiveKID)
	}
	for _, r := range []struct{ method, path string }{
		{"GET", "/signing-keys"}, {"POST", "/signing-keys/actions/rotate"}, {"DELETE", "/signing-keys/" + before.ActiveKID},
	} {
		e.wantError(e.do(cred{agent: oldTok}, r.method, r.path, nil), 403, "")
		e.wantError(e.do(cred{}, r.method, r.path, nil), 401, "")
	}

	var rotated models.SigningKeys
	e.must(adminCred(), 200, "POST", "/signing-keys/actions/rotate", nil).decode(t, &rotated)
	if rotated.ActiveKID == before.ActiveKID || !slices.Equal(rotated.KIDs, []string{before.ActiveKID, rotated.ActiveKID}) {
		t.Fatalf("after rotate: %+v (before %+v)", rotated, before)
	}
	if got := e.signingKeys(); !equalKeys(got, rotated) {
		t.Errorf("GET after rotate %+v, rotate answered %+v", got, rotated)
	}
	if got := e.stored(); !equalKeys(got, rotated) {
		t.Errorf("stored ring %+v, want %+v", got, rotated)
	}
	newTok := e.agentConfig(ie.ID).Token
	if kidOf(t, newTok) != rotated.ActiveKID {
		t.Errorf("token after rotate has kid %s, want %s", kidOf(t, newTok), rotated.ActiveKID)
	}
	e.must(cred{agent: oldTok}, 200, "GET", hosts, nil)
	e.must(cred{agent: newTok}, 200, "GET", hosts, nil)

	e.wantError(e.do(adminCred(), "DELETE", "/signing-keys/"+rotated.ActiveKID, nil), 409, "active key")
	e.wantError(e.do(adminCred(), "DELETE", "/signing-keys/no-such-kid", nil), 404, "no-such-kid")
	if got := e.signingKeys(); !equalKeys(got, rotated) {
		t.Errorf("refused retirements changed the ring: %+v", got)
	}
	ring, err := e.keys.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	e.must(adminCred(), 204, "DELETE", "/signing-keys/"+before.ActiveKID, nil)
	e.wantInfraError(e.do(cred{agent: oldTok}, "GET", hosts, nil), 401, "retired")
	e.must(cred{agent: newTok}, 200, "GET", hosts, nil)
	e.wantError(e.do(adminCred(), "DELETE", "/signing-keys/"+before.ActiveKID, nil), 404, "")
	after := models.SigningKeys{ActiveKID: rotated.ActiveKID, KIDs: []string{rotated.ActiveKID}}
	if got := e.signingKeys(); !equalKeys(got, after) {
		t.Errorf("after retire %+v, want %+v", got, after)
	}
	if got := e.stored(); !equalKeys(got, after) {
		t.Errorf("stored ring after retire %+v, want %+v", got, after)
	}
	wantKeyEvents(t, e, before.ActiveKID, rotated.ActiveKID)
	e.noKeyMaterial(ring)
	return after
}

func equalKeys(a, b models.SigningKeys) bool {
	return a.ActiveKID == b.ActiveKID && slices.Equal(a.KIDs, b.KIDs)
}

// wantKeyEvents requires one rotation event (naming both kids) and one
// retirement event (naming oldKID).
func wantKeyEvents(t *testing.T, e *env, oldKID, newKID string) {
	t.Helper()
	var evs []models.Event
	e.must(adminCred(), 200, "GET", "/events", nil).decode(t, &evs)
	var rotated, retired bool
	for _, ev := range evs {
		switch ev.Name {
		case eventKeyRotated:
			rotated = strings.Contains(ev.Message, newKID) && strings.Contains(ev.Props, oldKID)
		case eventKeyRetired:
			retired = strings.Contains(ev.Message, oldKID)
		}
	}
	if !rotated || !retired {
		t.Errorf("events: rotated %t retired %t in %+v", rotated, retired, evs)
	}
}

func TestSigningKeysMem(t *testing.T) {
	rotateRetire(t, newKeyEnv(t, enginetest.NewStore()))
}

// Against the replicated store: after the store is closed and opened
// again, the ring loaded from it holds the same kids, and the token signed
// after the rotation still verifies.
func TestSigningKeysRaftRestart(t *testing.T) {
	dir := t.TempDir()
	s := openRaft(t, dir)
	e := newKeyEnv(t, s)
	want := rotateRetire(t, e)
	ie := e.createInfraEnv("")
	tok := e.agentConfig(ie.ID).Token
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = openRaft(t, dir)
	t.Cleanup(func() { _ = s.Close() })
	e2 := newKeyEnv(t, s)
	if got := e2.signingKeys(); !equalKeys(got, want) {
		t.Errorf("after restart %+v, want %+v", got, want)
	}
	e2.must(cred{agent: tok}, 200, "GET", "/infra-envs/"+ie.ID+"/hosts", nil)
	if kid := kidOf(t, e2.agentConfig(ie.ID).Token); kid != want.ActiveKID {
		t.Errorf("token after restart signed by %s, want %s", kid, want.ActiveKID)
	}
}

// Concurrent rotations while agents call: every agent call with a token
// signed before any rotation succeeds, and the stored ring is the ring in
// memory (rotations are serialized).
func TestSigningKeysConcurrentRotate(t *testing.T) {
	e := newKeyEnv(t, enginetest.NewStore())
	ie := e.createInfraEnv("")
	tok := e.agentConfig(ie.ID).Token
	const rotations = 8
	var wg sync.WaitGroup
	codes := make(chan int, 4*rotations)
	for range rotations {
		wg.Go(func() { codes <- e.do(adminCred(), "POST", "/signing-keys/actions/rotate", nil).code })
		wg.Go(func() { codes <- e.do(cred{agent: tok}, "GET", "/infra-envs/"+ie.ID+"/hosts", nil).code })
		wg.Go(func() { codes <- e.do(adminCred(), "GET", "/signing-keys", nil).code })
	}
	wg.Wait()
	close(codes)
	for c := range codes {
		if c != 200 {
			t.Errorf("status %d during rotations", c)
		}
	}
	got := e.signingKeys()
	if len(got.KIDs) != rotations+1 || got.ActiveKID != got.KIDs[rotations] {
		t.Errorf("after %d rotations: %+v", rotations, got)
	}
	if st := e.stored(); !equalKeys(st, got) {
		t.Errorf("stored %+v, held %+v", st, got)
	}
}
