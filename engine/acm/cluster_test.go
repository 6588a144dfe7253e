package acm_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/acm"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/clusters"
	"github.com/rackboot/rackboot/engine/enginetest"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/kubegc"
)

const aciUID = "7d1c0a52-3e4f-4b6a-9c8d-1e2f3a4b5c6d"

// domain is the domain over s that the REST API calls too.
func domain(t testing.TB, s *enginetest.Store, _ *auth.KeyRing) *clusters.Domain {
	t.Helper()
	dom, err := clusters.NewDomain(hosts.Options{Store: s})
	if err != nil {
		t.Fatal(err)
	}
	return dom
}

// clusterEnv runs the controller with the REST API's domain, and the
// ownerReferences garbage collector, over a store holding namespace ns
// with a pull secret Secret.
func clusterEnv(t *testing.T) (*enginetest.Store, *engine.Sealer) {
	t.Helper()
	s := enginetest.NewStore()
	sealer, _ := engine.NewSealer(make([]byte, 32))
	keys := auth.NewKeyRing()
	if _, err := keys.Generate(); err != nil {
		t.Fatal(err)
	}
	dom := domain(t, s, keys)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- acm.Run(ctx, acm.Options{Store: s, Sealer: sealer, Keys: keys, Domain: dom, ServiceURL: "http://10.0.0.1:8080"})
	}()
	gcDone := make(chan error, 1)
	go func() { gcDone <- kubegc.Run(ctx, s, nil) }() // as cmd/rackbootd wires it beside acm
	t.Cleanup(func() { cancel(); <-done; <-gcDone })
	apply(t, s, &engine.PutObject{Create: true, Object: engine.Object{ObjectRef: engine.NamespaceRef("ns"), UID: "n", Body: json.RawMessage(`{}`)}})
	putPullSecret(t, s, sealer, "ps", "s", `{"auths":{}}`)
	return s, sealer
}

func put(t *testing.T, s *enginetest.Store, group, kind, ns, name, uid, body string) {
	t.Helper()
	apply(t, s, &engine.PutObject{Create: true, Object: engine.Object{
		ObjectRef: engine.ObjectRef{Group: group, Kind: kind, Namespace: ns, Name: name}, UID: uid, Body: json.RawMessage(body)}})
}

// lateBoundAgent makes a cluster of one control-plane Agent (putCluster),
// a late-binding InfraEnv and the Agent of a host registered from it, and
// returns what sets that Agent's spec.clusterDeploymentName as kubectl
// patch does (nil clears it).
func lateBoundAgent(t *testing.T, s *enginetest.Store) func(cd any) {
	t.Helper()
	putCluster(t, s, `{"spec":{"clusterDeploymentRef":{"name":"c1"},"imageSetRef":{"name":"ocp-4.17"},"provisionRequirements":{"controlPlaneAgents":1}}}`)
	waitFor(t, s, "the cluster", func(m *engine.Model) bool { _, ok := m.Cluster(aciUID); return ok })
	put(t, s, "agent-install.openshift.io", "InfraEnv", "ns", "ie", uid, `{"spec":{"pullSecretRef":{"name":"ps"}}}`)
	waitFor(t, s, "the infra-env", func(m *engine.Model) bool { _, ok := m.InfraEnv(uid); return ok })
	apply(t, s, &engine.RegisterHost{Host: engine.Host{ID: hostID, InfraEnvID: uid, Status: "discovering-unbound"}})
	waitFor(t, s, "the Agent", func(m *engine.Model) bool { _, _, ok := agentOf(m); return ok })
	var agent engine.Object
	s.Read(func(m *engine.Model) { agent, _, _ = agentOf(m) })
	return func(v any) { // as kubectl patch
		t.Helper()
		patch(t, s, agent.ObjectRef, func(b map[string]any) {
			sp := b["spec"].(map[string]any)
			if v == nil {
				delete(sp, "clusterDeploymentName")
			} else {
				sp["clusterDeploymentName"] = v
			}
		}, true)
	}
}

// putPullSecret creates the Secret ns/name holding the pull secret
// dockerconfig, sealed as the API stores it.
func putPullSecret(t testing.TB, s *enginetest.Store, sealer *engine.Sealer, name, uid, dockerconfig string) {
	t.Helper()
	ref := engine.ObjectRef{Kind: "Secret", Namespace: "ns", Name: name}
	sealed, err := sealer.Seal(ref.SealName(), engine.PullSecretKey, []byte(dockerconfig))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]any{"data": map[string]string{engine.PullSecretKey: base64.StdEncoding.EncodeToString(sealed)}})
	apply(t, s, &engine.PutObject{Create: true, Object: engine.Object{ObjectRef: ref, UID: uid, Body: body}})
}

// putCluster puts the ClusterImageSet ocp-4.17, the ClusterDeployment c1
// (pull secret ps) and its AgentClusterInstall (uid aciUID) with body
// aci, as a user applies them.
func putCluster(t *testing.T, s *enginetest.Store, aci string) {
	t.Helper()
	put(t, s, "hive.openshift.io", "ClusterImageSet", "", "ocp-4.17", "cis-uid",
		`{"spec":{"releaseImage":"quay.io/openshift-release-dev/ocp-release:4.17.0-x86_64"}}`)
	put(t, s, "hive.openshift.io", "ClusterDeployment", "ns", "c1", "cd-uid",
		`{"spec":{"clusterName":"c1","baseDomain":"example.com","pullSecretRef":{"name":"ps"}}}`)
	put(t, s, "extensions.hive.openshift.io", "AgentClusterInstall", "ns", "c1", aciUID, aci)
}

// aciCondition is the ACI's condition typ: status, reason, message.
func aciCondition(m *engine.Model, typ string) (string, string, string) {
	o, _ := m.Object(engine.ObjectRef{Group: "extensions.hive.openshift.io", Kind: "AgentClusterInstall", Namespace: "ns", Name: "c1"}.Key())
	var b struct {
		Status struct {
			Conditions []struct{ Type, Status, Reason, Message string }
		}
	}
	_ = json.Unmarshal(o.Body, &b)
	for _, c := range b.Status.Conditions {
		if c.Type == typ {
			return c.Status, c.Reason, c.Message
		}
	}
	return "", "", ""
}

// An AgentClusterInstall whose ClusterImageSet is missing is SpecSynced
// False with upstream's InputError and no cluster; once the
// ClusterImageSet exists the cluster is registered with the ACI's uid and
// the ClusterDeployment's name and domain. A host of an InfraEnv without
// clusterRef is bound when its Agent names the ClusterDeployment (late
// binding). When the cluster is installed, the ClusterDeployment is
// installed and its admin kubeconfig and password Secrets hold the
// install's credentials, sealed.
func TestClusterDeploymentController(t *testing.T) {
	s, sealer := clusterEnv(t)
	put(t, s, "hive.openshift.io", "ClusterDeployment", "ns", "c1", "cd-uid",
		`{"spec":{"clusterName":"c1","baseDomain":"example.com","pullSecretRef":{"name":"ps"}}}`)
	put(t, s, "extensions.hive.openshift.io", "AgentClusterInstall", "ns", "c1", aciUID,
		`{"spec":{"clusterDeploymentRef":{"name":"c1"},"imageSetRef":{"name":"ocp-4.17"},"provisionRequirements":{"controlPlaneAgents":1},
		"networking":{"machineNetwork":[{"cidr":"10.55.0.0/16"}]}}}`)
	waitFor(t, s, "SpecSynced InputError", func(m *engine.Model) bool {
		st, reason, msg := aciCondition(m, "SpecSynced")
		return st == "False" && reason == "InputError" &&
			msg == `The Spec could not be synced due to an input error: ClusterImageSet "ocp-4.17" not found`
	})
	s.Read(func(m *engine.Model) {
		if _, ok := m.Cluster(aciUID); ok {
			t.Error("a cluster made from an ACI without its ClusterImageSet")
		}
	})

	put(t, s, "hive.openshift.io", "ClusterImageSet", "", "ocp-4.17", "cis-uid",
		`{"spec":{"releaseImage":"quay.io/openshift-release-dev/ocp-release:4.17.0-x86_64"}}`)
	waitFor(t, s, "SpecSynced True", func(m *engine.Model) bool {
		st, reason, _ := aciCondition(m, "SpecSynced")
		return st == "True" && reason == "SyncOK"
	})
	s.Read(func(m *engine.Model) {
		c, ok := m.Cluster(aciUID)
		if !ok || c.Name != "c1" || c.BaseDomain != "example.com" || c.OpenshiftVersion != "4.17.0" || c.ControlPlaneCount != 1 {
			t.Errorf("cluster %+v, %v", c, ok)
		}
	})

	put(t, s, "agent-install.openshift.io", "InfraEnv", "ns", "ie", uid, `{"spec":{"pullSecretRef":{"name":"ps"}}}`)
	waitFor(t, s, "the infra-env", func(m *engine.Model) bool { _, ok := m.InfraEnv(uid); return ok })
	apply(t, s, &engine.RegisterHost{Host: engine.Host{ID: hostID, InfraEnvID: uid, Status: "discovering-unbound"}})
	waitFor(t, s, "the Agent", func(m *engine.Model) bool { _, _, ok := agentOf(m); return ok })
	var a engine.Object
	s.Read(func(m *engine.Model) { a, _, _ = agentOf(m) })
	patch(t, s, a.ObjectRef, func(b map[string]any) {
		b["spec"].(map[string]any)["clusterDeploymentName"] = map[string]any{"name": "c1", "namespace": "ns"}
	}, false)
	waitFor(t, s, "the host bound and its Agent Bound", func(m *engine.Model) bool {
		h, _ := m.Host(hostID)
		_, b, _ := agentOf(m)
		st, _ := b["status"].(map[string]any)
		conds, _ := st["conditions"].([]any)
		bound := false
		for _, c := range conds {
			c := c.(map[string]any)
			bound = bound || c["type"] == "Bound" && c["status"] == "True" && c["message"] == "The agent is bound to a cluster deployment"
		}
		return h.ClusterID == aciUID && bound
	})

	apply(t, s, &engine.PutSecret{Secret: engine.Secret{Name: engine.InstallSecretName(aciUID), Type: "install",
		Data: map[string][]byte{engine.ArtifactKubeconfig: []byte("apiVersion: v1\nkind: Config\n"), engine.ArtifactKubeadminPassword: []byte("pw-1")}}})
	var status string
	s.Read(func(m *engine.Model) { c, _ := m.Cluster(aciUID); status = c.Status })
	apply(t, s, &engine.SetClusterStatus{ID: aciUID, Status: engine.ClusterStatusInstalled, StatusInfo: "Cluster is installed", From: []string{status}})
	waitFor(t, s, "the ClusterDeployment installed", func(m *engine.Model) bool {
		cd, _ := m.Object(engine.ObjectRef{Group: "hive.openshift.io", Kind: "ClusterDeployment", Namespace: "ns", Name: "c1"}.Key())
		var b struct {
			Spec struct {
				Installed       bool
				ClusterMetadata struct {
					AdminKubeconfigSecretRef, AdminPasswordSecretRef struct{ Name string }
				}
			}
		}
		_ = json.Unmarshal(cd.Body, &b)
		md := b.Spec.ClusterMetadata
		completed, _, _ := aciCondition(m, "Completed")
		return completed == "True" && b.Spec.Installed && md.AdminKubeconfigSecretRef.Name == "c1-admin-kubeconfig" && md.AdminPasswordSecretRef.Name == "c1-admin-password"
	})
	s.Read(func(m *engine.Model) {
		for name, want := range map[string]map[string]string{
			"c1-admin-kubeconfig": {"kubeconfig": "apiVersion: v1\nkind: Config\n"},
			"c1-admin-password":   {"username": "kubeadmin", "password": "pw-1"},
		} {
			ref := engine.ObjectRef{Kind: "Secret", Namespace: "ns", Name: name}
			o, ok := m.Object(ref.Key())
			var b struct{ Data map[string]string }
			_ = json.Unmarshal(o.Body, &b)
			for k, v := range want {
				sealed, _ := base64.StdEncoding.DecodeString(b.Data[k])
				got, err := sealer.Open(ref.SealName(), k, sealed)
				if !ok || err != nil || string(got) != v {
					t.Errorf("Secret %s[%s]: %q %v (exists %v)", name, k, got, err, ok)
				}
			}
		}
		st, reason, msg := aciCondition(m, "Completed")
		if st != "True" || reason != "InstallationCompleted" || msg != "The installation has completed: Cluster is installed" {
			t.Errorf("Completed %s %s %q", st, reason, msg)
		}
	})

	// Upstream's ai-deprovision finalizer: deleting the ACI deregisters
	// the cluster and its hosts and deletes their Agents, then the ACI.
	aciRef := engine.ObjectRef{Group: "extensions.hive.openshift.io", Kind: "AgentClusterInstall", Namespace: "ns", Name: "c1"}
	s.Read(func(m *engine.Model) {
		o, _ := m.Object(aciRef.Key())
		if fs := o.Finalizers(); len(fs) != 1 || fs[0] != "agentclusterinstall.agent-install.openshift.io/ai-deprovision" {
			t.Errorf("ACI finalizers %q", fs)
		}
	})
	apply(t, s, &engine.DeleteObject{Ref: aciRef})
	waitFor(t, s, "the ACI, its cluster, host and Agent gone", func(m *engine.Model) bool {
		_, aci := m.Object(aciRef.Key())
		_, c := m.Cluster(aciUID)
		_, h := m.Host(hostID)
		_, _, a := agentOf(m)
		return !aci && !c && !h && !a
	})

	// The admin Secrets are the ClusterDeployment's (ownerReferences, as
	// upstream's): they outlive the ACI and go with the ClusterDeployment.
	cdRef := engine.ObjectRef{Group: "hive.openshift.io", Kind: "ClusterDeployment", Namespace: "ns", Name: "c1"}
	kcRef := engine.ObjectRef{Kind: "Secret", Namespace: "ns", Name: "c1-admin-kubeconfig"}
	pwRef := engine.ObjectRef{Kind: "Secret", Namespace: "ns", Name: "c1-admin-password"}
	s.Read(func(m *engine.Model) {
		cd, _ := m.Object(cdRef.Key())
		for _, ref := range []engine.ObjectRef{kcRef, pwRef} {
			o, ok := m.Object(ref.Key())
			var b struct {
				Metadata struct {
					OwnerReferences []struct{ APIVersion, Kind, Name, UID string }
				}
			}
			_ = json.Unmarshal(o.Body, &b)
			want := []struct{ APIVersion, Kind, Name, UID string }{{"hive.openshift.io/v1", "ClusterDeployment", "c1", cd.UID}}
			if !ok || !reflect.DeepEqual(b.Metadata.OwnerReferences, want) {
				t.Errorf("Secret %s (exists %v) after the ACI went: ownerReferences %+v, want %+v", ref.Name, ok, b.Metadata.OwnerReferences, want)
			}
		}
	})
	apply(t, s, &engine.DeleteObject{Ref: cdRef})
	waitFor(t, s, "the admin Secrets gone with their ClusterDeployment", func(m *engine.Model) bool {
		_, kc := m.Object(kcRef.Key())
		_, pw := m.Object(pwRef.Key())
		return !kc && !pw
	})
}

// A host whose Agent carries the labels a ClusterDeployment's
// agentSelector selects (its InfraEnv's agentLabels) is bound to that
// ClusterDeployment's cluster; deleting the ClusterDeployment deletes
// its ACI and cluster.
func TestAgentSelectorBinds(t *testing.T) {
	s, _ := clusterEnv(t)
	put(t, s, "hive.openshift.io", "ClusterImageSet", "", "ocp-4.17", "cis-uid",
		`{"spec":{"releaseImage":"quay.io/openshift-release-dev/ocp-release:4.17.0-x86_64"}}`)
	put(t, s, "hive.openshift.io", "ClusterDeployment", "ns", "c1", "cd-uid",
		`{"spec":{"clusterName":"c1","baseDomain":"example.com","pullSecretRef":{"name":"ps"},
		"platform":{"agentBareMetal":{"agentSelector":{"matchLabels":{"cluster-name":"c1"}}}}}}`)
	put(t, s, "extensions.hive.openshift.io", "AgentClusterInstall", "ns", "c1", aciUID,
		`{"spec":{"clusterDeploymentRef":{"name":"c1"},"imageSetRef":{"name":"ocp-4.17"},"provisionRequirements":{"controlPlaneAgents":1}}}`)
	waitFor(t, s, "the cluster", func(m *engine.Model) bool { _, ok := m.Cluster(aciUID); return ok })
	put(t, s, "agent-install.openshift.io", "InfraEnv", "ns", "ie", uid,
		`{"spec":{"pullSecretRef":{"name":"ps"},"agentLabels":{"cluster-name":"c1"}}}`)
	waitFor(t, s, "the infra-env", func(m *engine.Model) bool { _, ok := m.InfraEnv(uid); return ok })
	apply(t, s, &engine.RegisterHost{Host: engine.Host{ID: hostID, InfraEnvID: uid, Status: "discovering-unbound"}})
	waitFor(t, s, "the host bound by the agentSelector", func(m *engine.Model) bool {
		h, _ := m.Host(hostID)
		return h.ClusterID == aciUID
	})

	// Deleting the ClusterDeployment deletes its ACI, whose finalizer
	// deregisters the cluster.
	apply(t, s, &engine.DeleteObject{Ref: engine.ObjectRef{Group: "hive.openshift.io", Kind: "ClusterDeployment", Namespace: "ns", Name: "c1"}})
	waitFor(t, s, "the ACI and its cluster gone", func(m *engine.Model) bool {
		_, aci := m.Object(engine.ObjectRef{Group: "extensions.hive.openshift.io", Kind: "AgentClusterInstall", Namespace: "ns", Name: "c1"}.Key())
		_, c := m.Cluster(aciUID)
		return !aci && !c
	})
}

// Before the installation starts, a change of the ACI's spec is taken to
// the cluster (holdInstallation, sshPublicKey).
func TestACISpecChangeTakenToCluster(t *testing.T) {
	s, _ := clusterEnv(t)
	putCluster(t, s, `{"spec":{"clusterDeploymentRef":{"name":"c1"},"imageSetRef":{"name":"ocp-4.17"},"provisionRequirements":{"controlPlaneAgents":1}}}`)
	ref := engine.ObjectRef{Group: "extensions.hive.openshift.io", Kind: "AgentClusterInstall", Namespace: "ns", Name: "c1"}
	waitFor(t, s, "the cluster synced", func(m *engine.Model) bool {
		o, _ := m.Object(ref.Key())
		_, ok := m.Cluster(aciUID)
		return ok && strings.Contains(string(o.Body), `"rackboot.io/synced-generation"`)
	})
	patch(t, s, ref, func(b map[string]any) {
		sp := b["spec"].(map[string]any)
		sp["holdInstallation"], sp["sshPublicKey"] = true, "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOmN2oqCA8Hf0ADq0MFoZyxuyV0U1d4H0ADTbPjkpfu0 k"
	}, true)
	waitFor(t, s, "the change on the cluster", func(m *engine.Model) bool {
		c, _ := m.Cluster(aciUID)
		return c.HoldInstallation && strings.HasSuffix(c.SSHPublicKey, " k")
	})
}

// As upstream's Agent controller: clearing an Agent's
// clusterDeploymentName unbinds its host before the installation; naming
// the ClusterDeployment again binds it again.
func TestAgentUnbind(t *testing.T) {
	s, _ := clusterEnv(t)
	setCD := lateBoundAgent(t, s)
	setCD(map[string]any{"name": "c1", "namespace": "ns"})
	waitFor(t, s, "the host bound", func(m *engine.Model) bool { h, _ := m.Host(hostID); return h.ClusterID == aciUID })
	setCD(nil)
	waitFor(t, s, "the host unbound", func(m *engine.Model) bool { h, _ := m.Host(hostID); return h.ClusterID == "" })
	setCD(map[string]any{"name": "c1", "namespace": "ns"})
	waitFor(t, s, "the host bound again", func(m *engine.Model) bool { h, _ := m.Host(hostID); return h.ClusterID == aciUID })
}
