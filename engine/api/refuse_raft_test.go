package api

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rackboot/rackboot/cluster"
	"github.com/rackboot/rackboot/engine"
)

// refusedPassword is the password of refused requests: it must reach
// neither the log nor a Secret.
const refusedPassword = "Refused-Bmc-Pa55word"

// openSealedStore opens the replicated store in dir as rackbootd does:
// its secrets sealed with sealer (nil: none).
func openSealedStore(t *testing.T, dir string, sealer *engine.Sealer) *cluster.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := cluster.Open(ctx, cluster.Config{DataDir: dir, HeartbeatTimeout: 50 * time.Millisecond, Sealer: sealer})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func testSealer(t *testing.T) *engine.Sealer {
	t.Helper()
	sealer, err := engine.NewSealer(bytes.Repeat([]byte{9}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return sealer
}

// newRaftBMHEnv is an API with a sealer over the replicated store in dir,
// wired as rackbootd wires them; the ring signing tokens is the store's.
func newRaftBMHEnv(t *testing.T, dir string) (*env, *cluster.Store) {
	t.Helper()
	sealer := testSealer(t)
	st := openSealedStore(t, dir, sealer)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	keys, err := engine.LoadKeyRing(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	h, err = New(Options{Store: st, AdminToken: testAdmin, Keys: keys, ServiceURL: srv.URL, Sealer: sealer,
		Log: slog.New(slog.NewJSONHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, store: st, srv: srv, logs: logs, keys: keys, seen: &syncBuffer{}}, st
}

// A refused BareMetalHost (created or patched, through the API as
// rackbootctl create bmh -f does) writes nothing: no log entry, no
// credentials Secret, and its password is nowhere in raft.db.
func TestRefusedBareMetalHostWritesNothing(t *testing.T) {
	dir := t.TempDir()
	e, st := newRaftBMHEnv(t, dir)
	e.must(adminCred(), 201, "POST", "/baremetal-hosts", sno1())
	var sec engine.Secret
	st.Read(func(m *engine.Model) { sec, _ = m.Secret("sno1-bmc-secret") })

	refused := map[string]func(b map[string]any){
		"password in the address": func(b map[string]any) {
			b["spec"].(map[string]any)["bmc"].(map[string]any)["address"] = "redfish://root:" + refusedPassword + "@10.0.0.5/redfish/v1/Systems/1"
		},
		"bad MAC":         func(b map[string]any) { b["spec"].(map[string]any)["bootMACAddress"] = "94:40" },
		"upper-case name": func(b map[string]any) { b["metadata"].(map[string]any)["name"] = "SNO2" },
		"bad cleaning":    func(b map[string]any) { b["spec"].(map[string]any)["automatedCleaningMode"] = "always" },
	}
	for name, mod := range refused {
		b := sno1()
		b["metadata"].(map[string]any)["name"] = "sno2"
		b["spec"].(map[string]any)["bmc"].(map[string]any)["credentialsName"] = "sno2-bmc-secret"
		b["credentials"] = map[string]string{"username": "root", "password": refusedPassword}
		mod(b)
		before := st.Stats().LastIndex
		e.wantError(e.do(adminCred(), "POST", "/baremetal-hosts", b), 400, "")
		if after := st.Stats().LastIndex; after != before {
			t.Errorf("create, %s: refused, yet the log grew from %d to %d", name, before, after)
		}
		st.Read(func(m *engine.Model) {
			if _, ok := m.Secret("sno2-bmc-secret"); ok {
				t.Errorf("create, %s: the refused BMH left its credentials secret", name)
			}
		})
	}

	before := st.Stats().LastIndex
	e.wantError(e.do(adminCred(), "PATCH", "/baremetal-hosts/sno1", map[string]any{
		"spec":        map[string]any{"bmc": map[string]any{"address": "redfish://root:" + refusedPassword + "@10.0.0.5/"}},
		"credentials": map[string]string{"username": "root", "password": refusedPassword},
	}), 400, "credentials in the address")
	if after := st.Stats().LastIndex; after != before {
		t.Errorf("patch: refused, yet the log grew from %d to %d", before, after)
	}
	st.Read(func(m *engine.Model) {
		if now, _ := m.Secret("sno1-bmc-secret"); now.Revision != sec.Revision {
			t.Errorf("patch: the refused change rewrote the credentials secret (revision %d, was %d)", now.Revision, sec.Revision)
		}
	})

	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := os.ReadFile(filepath.Join(dir, "raft", "raft.db"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(db, []byte(refusedPassword)) {
		t.Error("raft.db holds the password of a refused request")
	}
}

// Refused requests of every kind the API takes write nothing to the log;
// the pull secret they carried is nowhere in raft.db.
func TestRefusedRequestsWriteNothing(t *testing.T) {
	dir := t.TempDir()
	e, st := newRaftBMHEnv(t, dir)
	c := e.createCluster()
	ie := e.createInfraEnv(c.ID)
	const marker = "UmVmdXNlZC1wdWxsLXNlY3JldC05MQ"
	ps := `{"auths":{"quay.io":{"auth":"` + marker + `"}}}`
	unknown := "44444444-4444-4444-8444-444444444444"
	for _, r := range []struct {
		method, path string
		body         any
		code         int
	}{
		{"POST", "/clusters", map[string]any{"name": "a;reboot", "openshift_version": "4.17", "pull_secret": ps}, 400},
		{"PATCH", "/clusters/" + c.ID, map[string]any{"pull_secret": ps, "machine_networks": []map[string]any{{"cidr": "10.0.0.1/8"}}}, 400},
		{"PATCH", "/clusters/" + unknown, map[string]any{"pull_secret": ps}, 404},
		{"POST", "/infra-envs", map[string]any{"name": "x", "pull_secret": ps, "cluster_id": unknown}, 404},
		{"PATCH", "/infra-envs/" + ie.ID, map[string]any{"pull_secret": ps, "kernel_arguments": []map[string]string{{"operation": "append", "value": "a b"}}}, 400},
		{"PATCH", "/infra-envs/" + unknown, map[string]any{"pull_secret": ps}, 404},
		{"DELETE", "/clusters/" + c.ID, nil, 409},
		{"DELETE", "/baremetal-hosts/nope", nil, 404},
	} {
		before := st.Stats().LastIndex
		e.wantError(e.do(adminCred(), r.method, r.path, r.body), r.code, "")
		if after := st.Stats().LastIndex; after != before {
			t.Errorf("%s %s: refused, yet the log grew from %d to %d", r.method, r.path, before, after)
		}
	}
	if err := st.Snapshot(); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	scanForSecrets(t, dir, marker)
}
