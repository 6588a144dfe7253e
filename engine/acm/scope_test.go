package acm_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/acm"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/enginetest"
)

const otherHost = "7d2b8e1f-4c8a-4e3b-9f70-1b2c3d4e5f60"

// A change of one host reconciles that host's Agent only (not every
// Agent, as a pass after any change did: 10,000 Agents made every
// check-in cost a full pass), and a check-in that changes nothing the
// Agent shows writes nothing to the log; a change of an Agent
// reconciles that Agent, and a change of an InfraEnv every Agent.
func TestHostChangeReconcilesItsAgent(t *testing.T) {
	s := enginetest.NewStore()
	sealer, _ := engine.NewSealer(make([]byte, 32))
	keys := auth.NewKeyRing()
	if _, err := keys.Generate(); err != nil {
		t.Fatal(err)
	}
	var seen []string
	o := acm.WithAgentHook(acm.Options{Store: s, Sealer: sealer, Keys: keys, Domain: domain(t, s, keys), ServiceURL: "http://x"},
		func(h string) { seen = append(seen, h) })
	ctx := context.Background()
	all := []engine.Change{{Kind: engine.KindAll}}

	apply(t, s, &engine.PutObject{Create: true, Object: engine.Object{ObjectRef: engine.NamespaceRef("ns"), UID: "n", Body: json.RawMessage(`{}`)}})
	ref := engine.ObjectRef{Kind: "Secret", Namespace: "ns", Name: "ps"}
	sealed, _ := sealer.Seal(ref.SealName(), engine.PullSecretKey, []byte(`{"auths":{}}`))
	body, _ := json.Marshal(map[string]any{"data": map[string]string{engine.PullSecretKey: base64.StdEncoding.EncodeToString(sealed)}})
	apply(t, s, &engine.PutObject{Create: true, Object: engine.Object{ObjectRef: ref, UID: "s", Body: body}})
	apply(t, s, &engine.PutObject{Create: true, Object: engine.Object{
		ObjectRef: engine.ObjectRef{Group: "agent-install.openshift.io", Kind: "InfraEnv", Namespace: "ns", Name: "ie"}, UID: uid,
		Body: json.RawMessage(`{"spec":{"pullSecretRef":{"name":"ps"}}}`)}})
	acm.Pass(ctx, o, all)
	for _, id := range []string{hostID, otherHost} {
		apply(t, s, &engine.RegisterHost{Host: engine.Host{ID: id, InfraEnvID: uid, Status: "discovering",
			Inventory: json.RawMessage(`{"hostname":"node-7"}`)}})
	}
	settle(t, ctx, s, o)

	check := func(what string, chs []engine.Change, want ...string) {
		t.Helper()
		seen = nil
		if !acm.Pass(ctx, o, chs) {
			t.Fatalf("%s: no pass", what)
		}
		slices.Sort(seen)
		slices.Sort(want)
		if !slices.Equal(seen, want) {
			t.Errorf("%s: Agents of hosts %v reconciled, want %v", what, seen, want)
		}
	}
	// A check-in: the host's check-in time changes, nothing an Agent shows.
	at := time.Now()
	apply(t, s, &engine.UpdateHost{ID: hostID, InfraEnvID: uid, Patch: engine.HostPatch{CheckedInAt: &at}})
	before := s.Entries()
	check("a check-in", []engine.Change{{Kind: engine.KindHost, ID: hostID}}, hostID)
	if n := s.Entries() - before; n != 0 {
		t.Errorf("a check-in that changes nothing in the Agent wrote %d log entries", n)
	}

	role := "master"
	apply(t, s, &engine.UpdateHost{ID: hostID, InfraEnvID: uid, Patch: engine.HostPatch{Role: &role}})
	check("a role change", []engine.Change{{Kind: engine.KindHost, ID: hostID}}, hostID)
	s.Read(func(m *engine.Model) {
		if _, b, _ := agentOf(m); b["spec"].(map[string]any)["role"] != "master" {
			t.Errorf("Agent spec %v, want the host's role", b["spec"])
		}
	})
	// Another check-in, now that the controller has written the Agent
	// (its status.observedGeneration set).
	at = at.Add(time.Minute)
	apply(t, s, &engine.UpdateHost{ID: hostID, InfraEnvID: uid, Patch: engine.HostPatch{CheckedInAt: &at}})
	before = s.Entries()
	check("a check-in after a write", []engine.Change{{Kind: engine.KindHost, ID: hostID}}, hostID)
	if n := s.Entries() - before; n != 0 {
		t.Errorf("a check-in after the Agent was written wrote %d log entries", n)
	}

	var agent engine.Object
	s.Read(func(m *engine.Model) {
		agent, _ = m.Object(engine.ObjectRef{Group: "agent-install.openshift.io", Kind: "Agent", Namespace: "ns", Name: otherHost}.Key())
	})
	check("an Agent change", []engine.Change{{Kind: engine.KindObject, ID: agent.Key(), Object: &agent}}, otherHost)
	check("an InfraEnv change", []engine.Change{{Kind: engine.KindInfraEnv, ID: uid}}, hostID, otherHost)
	if acm.Pass(ctx, o, []engine.Change{{Kind: engine.KindLease, ID: "x"}}) {
		t.Error("a lease change made a pass")
	}
}

// settle makes full passes until one writes nothing.
func settle(t *testing.T, ctx context.Context, s *enginetest.Store, o acm.Options) {
	t.Helper()
	for range 10 {
		before := s.Entries()
		acm.Pass(ctx, o, []engine.Change{{Kind: engine.KindAll}})
		if s.Entries() == before {
			return
		}
	}
	t.Fatal("the controller still writes after 10 passes")
}
