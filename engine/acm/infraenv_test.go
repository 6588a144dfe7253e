package acm_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/acm"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/enginetest"
)

const uid = "0b6e6a44-6c55-4f0e-9a57-2f6f6c2d1a01"

// waitFor waits for a change after which cond holds (bounded, so that a
// broken controller fails the test; nothing is asserted about speed).
func waitFor(t *testing.T, s *enginetest.Store, what string, cond func(m *engine.Model) bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sub := s.Subscribe(ctx)
	for {
		ok := false
		s.Read(func(m *engine.Model) { ok = cond(m) })
		if ok {
			return
		}
		if _, more := <-sub; !more {
			t.Fatalf("no %s", what)
		}
	}
}

func apply(t *testing.T, s *enginetest.Store, c engine.Command) {
	t.Helper()
	if _, err := s.Apply(context.Background(), c); err != nil {
		t.Fatal(err)
	}
}

func condition(m *engine.Model) (status, reason, ipxe string) {
	o, _ := m.Object(engine.ObjectRef{Group: "agent-install.openshift.io", Kind: "InfraEnv", Namespace: "ns", Name: "ie"}.Key())
	var b struct {
		Status struct {
			Conditions []struct{ Type, Status, Reason string }
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
		done <- acm.Run(ctx, acm.Options{Store: s, Sealer: sealer, Keys: keys, ServiceURL: "http://10.0.0.1:8080"})
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
