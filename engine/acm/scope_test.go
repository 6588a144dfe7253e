package acm_test

import (
	"context"
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
	var seen []string
	s, o := twoAgents(t, func(o acm.Options) acm.Options {
		return acm.WithAgentHook(o, func(h string) { seen = append(seen, h) })
	})
	ctx := context.Background()

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

// twoAgents is a store with an InfraEnv (its namespace and pull secret)
// and two hosts registered from it, hostID and otherHost, whose Agents
// the controller (o, as with makes it) has made and settled.
func twoAgents(t *testing.T, with func(acm.Options) acm.Options) (*enginetest.Store, acm.Options) {
	t.Helper()
	return withAgents(t, with, hostID, otherHost)
}

// withAgents is twoAgents with the hosts ids.
func withAgents(t testing.TB, with func(acm.Options) acm.Options, ids ...string) (*enginetest.Store, acm.Options) {
	t.Helper()
	s := enginetest.NewStore()
	sealer, _ := engine.NewSealer(make([]byte, 32))
	keys := auth.NewKeyRing()
	if _, err := keys.Generate(); err != nil {
		t.Fatal(err)
	}
	o := with(acm.Options{Store: s, Sealer: sealer, Keys: keys, Domain: domain(t, s, keys), ServiceURL: "http://x"})
	ctx := context.Background()
	apply(t, s, &engine.PutObject{Create: true, Object: engine.Object{ObjectRef: engine.NamespaceRef("ns"), UID: "n", Body: json.RawMessage(`{}`)}})
	putPullSecret(t, s, sealer, "ps", "s", `{"auths":{}}`)
	apply(t, s, &engine.PutObject{Create: true, Object: engine.Object{
		ObjectRef: engine.ObjectRef{Group: "agent-install.openshift.io", Kind: "InfraEnv", Namespace: "ns", Name: "ie"}, UID: uid,
		Body: json.RawMessage(`{"spec":{"pullSecretRef":{"name":"ps"}}}`)}})
	acm.Pass(ctx, o, []engine.Change{{Kind: engine.KindAll}})
	for _, id := range ids {
		apply(t, s, &engine.RegisterHost{Host: engine.Host{ID: id, InfraEnvID: uid, Status: "discovering",
			Inventory: json.RawMessage(`{"hostname":"node-7"}`)}})
	}
	settle(t, ctx, s, o)
	return s, o
}

// settle makes full passes until one writes nothing.
func settle(t testing.TB, ctx context.Context, s *enginetest.Store, o acm.Options) {
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

// A full pass (after a change that is not a host's or an Agent's, or when
// the change feed dropped the controller for lagging behind) reconciles
// only the Agents whose host, Agent or InfraEnv changed since they were
// last reconciled: with 10,000 settled Agents every full pass decoded and
// compared them all, for minutes after the registration storm; and a
// label patched on an Agent, reconciled, writes nothing more.
func TestFullPassSkipsUnchangedAgents(t *testing.T) {
	var seen []string
	s, o := twoAgents(t, func(o acm.Options) acm.Options {
		return acm.WithMemo(acm.WithAgentHook(o, func(h string) { seen = append(seen, h) }))
	})
	ctx := context.Background()
	full := func(what string, want ...string) {
		t.Helper()
		seen = nil
		acm.Pass(ctx, o, []engine.Change{{Kind: engine.KindAll}})
		slices.Sort(seen)
		slices.Sort(want)
		if !slices.Equal(seen, want) {
			t.Errorf("%s: Agents of hosts %v reconciled, want %v", what, seen, want)
		}
	}
	full("a full pass with nothing changed")

	role := "master"
	apply(t, s, &engine.UpdateHost{ID: hostID, InfraEnvID: uid, Patch: engine.HostPatch{Role: &role}})
	full("a full pass after a host's change", hostID)
	settle(t, ctx, s, o)
	s.Read(func(m *engine.Model) {
		if _, b, _ := agentOf(m); b["spec"].(map[string]any)["role"] != "master" {
			t.Errorf("Agent spec %v, want the host's role", b["spec"])
		}
	})

	var agent engine.Object
	key := engine.ObjectRef{Group: "agent-install.openshift.io", Kind: "Agent", Namespace: "ns", Name: otherHost}.Key()
	s.Read(func(m *engine.Model) { agent, _ = m.Object(key) })
	var body map[string]any
	if err := json.Unmarshal(agent.Body, &body); err != nil {
		t.Fatal(err)
	}
	body["metadata"].(map[string]any)["labels"].(map[string]any)["seq"] = "1"
	agent.Body, _ = json.Marshal(body)
	agent.Labels = map[string]string{"seq": "1", "infraenvs.agent-install.openshift.io": "ie"}
	apply(t, s, &engine.PutObject{Object: agent, IfRevision: agent.Revision})
	before := s.Entries()
	full("a full pass after a label patched on an Agent", otherHost)
	if n := s.Entries() - before; n != 0 {
		t.Errorf("the pass after a label patch wrote %d log entries", n)
	}
	full("the next full pass")

	s.Read(func(m *engine.Model) {
		agent, _ = m.Object(engine.ObjectRef{Group: "agent-install.openshift.io", Kind: "InfraEnv", Namespace: "ns", Name: "ie"}.Key())
	})
	agent.Labels = map[string]string{"x": "y"}
	apply(t, s, &engine.PutObject{Object: agent, IfRevision: agent.Revision})
	full("a full pass after an InfraEnv's change", hostID, otherHost)
}

// A pass after an Agent's change checks only that Agent for a gone host,
// wherever it is: an Agent with rackboot's finalizer and no host, in a
// namespace without an InfraEnv, is deleted and its finalizer dropped by
// the passes after its own changes.
func TestAgentChangeWithoutHostDeletesIt(t *testing.T) {
	s, o := twoAgents(t, acm.WithMemo)
	ctx := context.Background()
	ref := engine.ObjectRef{Group: "agent-install.openshift.io", Kind: "Agent", Namespace: "elsewhere", Name: "3f0c9e2a-1d4b-4c8e-9a7f-6b5e4d3c2b1a"}
	apply(t, s, &engine.PutObject{Create: true, Object: engine.Object{ObjectRef: engine.NamespaceRef("elsewhere"), UID: "e", Body: json.RawMessage(`{}`)}})
	apply(t, s, &engine.PutObject{Create: true, Object: engine.Object{ObjectRef: ref, UID: "a", Generation: 1,
		Body: json.RawMessage(`{"metadata":{"finalizers":["agent.agent-install.openshift.io/ai-deprovision"]},"spec":{}}`)}})
	for range 2 {
		var a engine.Object
		var ok bool
		s.Read(func(m *engine.Model) { a, ok = m.Object(ref.Key()) })
		if !ok {
			break
		}
		acm.Pass(ctx, o, []engine.Change{{Kind: engine.KindObject, ID: a.Key(), Object: &a}})
	}
	s.Read(func(m *engine.Model) {
		if a, ok := m.Object(ref.Key()); ok {
			t.Errorf("the Agent of no host is still there (deleting: %v)", a.Deleting())
		}
	})
}
