package acm_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/acm"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/enginetest"
)

const uid = "0b6e6a44-6c55-4f0e-9a57-2f6f6c2d1a01"

// waitFor is enginetest.WaitFor.
func waitFor(t *testing.T, s *enginetest.Store, what string, cond func(m *engine.Model) bool) {
	t.Helper()
	enginetest.WaitFor(t, s, what, cond)
}

func apply(t testing.TB, s *enginetest.Store, c engine.Command) {
	t.Helper()
	if _, err := s.Apply(context.Background(), c); err != nil {
		t.Fatal(err)
	}
}

func condition(m *engine.Model) (status, reason, ipxe string) {
	o, _ := m.Object(engine.ObjectRef{Group: "agent-install.openshift.io", Kind: "InfraEnv", Namespace: "ns", Name: "ie"}.Key())
	var b struct {
		Status struct {
			Conditions    []struct{ Type, Status, Reason string }
			BootArtifacts struct {
				IPXEScript string `json:"ipxeScript"`
			}
		}
	}
	_ = json.Unmarshal(o.Body, &b)
	if len(b.Status.Conditions) != 1 || b.Status.Conditions[0].Type != "ImageCreated" {
		return "", "", ""
	}
	c := b.Status.Conditions[0]
	return c.Status, c.Reason, b.Status.BootArtifacts.IPXEScript
}

// An InfraEnv whose pull secret is missing is ImageCreated False; once the
// Secret exists the infra-env is made with its pull secret and the status
// names the iPXE script; removing the InfraEnv removes the infra-env.
func TestInfraEnvController(t *testing.T) {
	s := enginetest.NewStore()
	sealer, err := engine.NewSealer(make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	keys := auth.NewKeyRing()
	if _, err := keys.Generate(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- acm.Run(ctx, acm.Options{Store: s, Sealer: sealer, Keys: keys, Domain: domain(t, s, keys), ServiceURL: "http://10.0.0.1:8080"})
	}()
	defer func() { cancel(); <-done }()

	apply(t, s, &engine.PutObject{Create: true, Object: engine.Object{ObjectRef: engine.NamespaceRef("ns"), UID: "n", Body: json.RawMessage(`{}`)}})
	ie := engine.Object{ObjectRef: engine.ObjectRef{Group: "agent-install.openshift.io", Kind: "InfraEnv", Namespace: "ns", Name: "ie"},
		UID: uid, Generation: 1, Body: json.RawMessage(`{"spec":{"pullSecretRef":{"name":"ps"},"sshAuthorizedKey":"ssh-ed25519 AAAA k"}}`)}
	apply(t, s, &engine.PutObject{Create: true, Object: ie})
	waitFor(t, s, "ImageCreated False", func(m *engine.Model) bool {
		st, reason, _ := condition(m)
		return st == "False" && reason == "ImageCreationError"
	})

	ref := engine.ObjectRef{Kind: "Secret", Namespace: "ns", Name: "ps"}
	sealed, err := sealer.Seal(ref.SealName(), engine.PullSecretKey, []byte(`{"auths":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]any{"type": "kubernetes.io/dockerconfigjson",
		"data": map[string]string{engine.PullSecretKey: base64.StdEncoding.EncodeToString(sealed)}})
	apply(t, s, &engine.PutObject{Create: true, Object: engine.Object{ObjectRef: ref, UID: "s", Body: body}})
	waitFor(t, s, "ImageCreated True", func(m *engine.Model) bool {
		st, _, ipxe := condition(m)
		return st == "True" && strings.HasPrefix(ipxe, "http://10.0.0.1:8080/api/assisted-install/v2/infra-envs/"+uid+"/downloads/files?")
	})
	s.Read(func(m *engine.Model) {
		got, ok := m.InfraEnv(uid)
		if !ok || got.Name != "ie" || got.SSHAuthorizedKey != "ssh-ed25519 AAAA k" {
			t.Fatalf("infra-env %+v, %v", got, ok)
		}
		if ps, _ := m.PullSecret(got.PullSecretRef); ps != `{"auths":{}}` {
			t.Errorf("pull secret %q", ps)
		}
	})

	apply(t, s, &engine.DeleteObject{Ref: ie.ObjectRef})
	waitFor(t, s, "the infra-env removed", func(m *engine.Model) bool {
		_, ok := m.InfraEnv(uid)
		return !ok
	})
}

const hostID = "5c1a9d0e-3b7f-4d2a-8e6f-0a1b2c3d4e5f"

func agentOf(m *engine.Model) (engine.Object, map[string]any, bool) {
	o, ok := m.Object(engine.ObjectRef{Group: "agent-install.openshift.io", Kind: "Agent", Namespace: "ns", Name: hostID}.Key())
	var body map[string]any
	_ = json.Unmarshal(o.Body, &body)
	return o, body, ok
}

// A host registering from an InfraEnv's infra-env gets an Agent with the
// InfraEnv's labels and the host's state; approving the Agent approves
// the host; a role set through the REST API shows in the Agent's spec.
func TestAgentsForHosts(t *testing.T) {
	s := enginetest.NewStore()
	sealer, _ := engine.NewSealer(make([]byte, 32))
	keys := auth.NewKeyRing()
	if _, err := keys.Generate(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- acm.Run(ctx, acm.Options{Store: s, Sealer: sealer, Keys: keys, Domain: domain(t, s, keys), ServiceURL: "http://x"})
	}()
	defer func() { cancel(); <-done }()

	apply(t, s, &engine.PutObject{Create: true, Object: engine.Object{ObjectRef: engine.NamespaceRef("ns"), UID: "n", Body: json.RawMessage(`{}`)}})
	putPullSecret(t, s, sealer, "ps", "s", `{"auths":{}}`)
	apply(t, s, &engine.PutObject{Create: true, Object: engine.Object{
		ObjectRef: engine.ObjectRef{Group: "agent-install.openshift.io", Kind: "InfraEnv", Namespace: "ns", Name: "ie"}, UID: uid,
		Body: json.RawMessage(`{"spec":{"pullSecretRef":{"name":"ps"},"agentLabels":{"project":"p1"}}}`)}})
	waitFor(t, s, "the infra-env", func(m *engine.Model) bool { _, ok := m.InfraEnv(uid); return ok })

	apply(t, s, &engine.RegisterHost{Host: engine.Host{ID: hostID, InfraEnvID: uid, Status: "discovering",
		Inventory: json.RawMessage(`{"hostname":"node-7"}`)}})
	waitFor(t, s, "an Agent with the host's state", func(m *engine.Model) bool {
		a, b, ok := agentOf(m)
		st, _ := b["status"].(map[string]any)
		inv, _ := st["inventory"].(map[string]any)
		dbg, _ := st["debugInfo"].(map[string]any)
		return ok && a.Labels["infraenvs.agent-install.openshift.io"] == "ie" && a.Labels["project"] == "p1" &&
			inv["hostname"] == "node-7" && dbg["state"] == "discovering"
	})

	// kubectl patch ... -p '{"spec":{"approved":true}}' --type merge
	var a engine.Object
	s.Read(func(m *engine.Model) { a, _, _ = agentOf(m) })
	patch(t, s, a.ObjectRef, func(b map[string]any) { b["spec"].(map[string]any)["approved"] = true }, false)
	waitFor(t, s, "the host approved", func(m *engine.Model) bool { h, _ := m.Host(hostID); return h.Approved })

	role := "master"
	apply(t, s, &engine.UpdateHost{ID: hostID, InfraEnvID: uid, Patch: engine.HostPatch{Role: &role}})
	waitFor(t, s, "the role in the Agent's spec", func(m *engine.Model) bool {
		_, b, _ := agentOf(m)
		sp, _ := b["spec"].(map[string]any)
		return sp["role"] == "master" && sp["approved"] == true
	})
	s.Read(func(m *engine.Model) {
		if h, _ := m.Host(hostID); !h.Approved || h.Role != "master" {
			t.Errorf("host approved %v role %q", h.Approved, h.Role)
		}
	})
}

// An Agent's ignitionConfigOverrides goes to its host through the REST
// API's host update; one the domain refuses leaves the host as it was and
// is the Agent's SpecSynced False InputError.
func TestAgentOverridesToHost(t *testing.T) {
	s, _ := clusterEnv(t)
	put(t, s, "agent-install.openshift.io", "InfraEnv", "ns", "ie", uid, `{"spec":{"pullSecretRef":{"name":"ps"}}}`)
	waitFor(t, s, "the infra-env", func(m *engine.Model) bool { _, ok := m.InfraEnv(uid); return ok })
	apply(t, s, &engine.RegisterHost{Host: engine.Host{ID: hostID, InfraEnvID: uid, Status: "discovering-unbound"}})
	waitFor(t, s, "the Agent", func(m *engine.Model) bool { _, _, ok := agentOf(m); return ok })
	var agent engine.Object
	s.Read(func(m *engine.Model) { agent, _, _ = agentOf(m) })
	setSpec := func(k string, v any) { // as kubectl patch
		t.Helper()
		patch(t, s, agent.ObjectRef, func(b map[string]any) { b["spec"].(map[string]any)[k] = v }, false)
	}
	const good = `{"ignition":{"version":"3.2.0"},"storage":{"files":[{"path":"/etc/x","contents":{"source":"data:,x"}}]}}`
	setSpec("ignitionConfigOverrides", good)
	waitFor(t, s, "the override on the host", func(m *engine.Model) bool { h, _ := m.Host(hostID); return h.IgnitionOverride == good })

	setSpec("ignitionConfigOverrides", `{"ignition":`)
	waitFor(t, s, "SpecSynced InputError", func(m *engine.Model) bool {
		msg, ok := specSyncedInputError(m)
		return ok && strings.HasPrefix(msg, "The Spec could not be synced due to an input error: ")
	})
	s.Read(func(m *engine.Model) {
		if h, _ := m.Host(hostID); h.IgnitionOverride != good {
			t.Errorf("the refused override reached the host: %q", h.IgnitionOverride)
		}
	})

	// spec.installerArgs (a JSON array, as upstream's Agent holds it) is
	// the host's installer_args; a flag upstream's installer does not take
	// is SpecSynced InputError and leaves the host as it was.
	setSpec("ignitionConfigOverrides", good)
	setSpec("installerArgs", `["--append-karg","nosmt"]`)
	waitFor(t, s, "the installer args on the host", func(m *engine.Model) bool {
		h, _ := m.Host(hostID)
		return h.InstallerArgs == `["--append-karg","nosmt"]`
	})
	setSpec("installerArgs", `["--image-url","http://elsewhere"]`)
	waitFor(t, s, "SpecSynced InputError for installerArgs", func(m *engine.Model) bool {
		msg, ok := specSyncedInputError(m)
		return ok && strings.Contains(msg, `"--image-url" is not an allowed coreos-installer flag`)
	})
	s.Read(func(m *engine.Model) {
		if h, _ := m.Host(hostID); h.InstallerArgs != `["--append-karg","nosmt"]` {
			t.Errorf("refused installer args reached the host: %q", h.InstallerArgs)
		}
	})
}

// specSyncedInputError is the message of the Agent's first condition when
// it is SpecSynced False with reason InputError (ok false otherwise).
func specSyncedInputError(m *engine.Model) (msg string, ok bool) {
	_, b, _ := agentOf(m)
	st, _ := b["status"].(map[string]any)
	conds, _ := st["conditions"].([]any)
	if len(conds) == 0 {
		return "", false
	}
	c := conds[0].(map[string]any)
	if c["type"] != "SpecSynced" || c["status"] != "False" || c["reason"] != "InputError" {
		return "", false
	}
	msg, ok = c["message"].(string)
	return msg, ok
}
