package acm_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/enginetest"
)

// setPullSecret replaces the data of the Secret ns/ps with ps, sealed as
// the API stores it, as kubectl apply would.
func setPullSecret(t *testing.T, s *enginetest.Store, sealer *engine.Sealer, ps string) {
	t.Helper()
	ref := engine.ObjectRef{Kind: "Secret", Namespace: "ns", Name: "ps"}
	sealed, _ := sealer.Seal(ref.SealName(), engine.PullSecretKey, []byte(ps))
	patch(t, s, ref, func(b map[string]any) {
		b["data"] = map[string]any{engine.PullSecretKey: base64.StdEncoding.EncodeToString(sealed)}
	}, false)
}

func clusterPullSecret(m *engine.Model) string {
	c, _ := m.Cluster(aciUID)
	ps, _ := m.PullSecret(c.PullSecretRef)
	return ps
}

// As upstream's ClusterDeployment controller (updateIfNeeded), before the
// installation starts: a change of the pull secret Secret's data, of the
// ClusterImageSet's releaseImage or of the ACI's imageSetRef, and of
// provisionRequirements.controlPlaneAgents is taken to the cluster. Once
// the installation started, a pull secret change is refused with
// upstream's cluster update refusal (SpecSynced False, BackendError), the
// cluster keeps its pull secret and the ACI its other conditions; the
// ClusterImageSet may be deleted then.
func TestPullSecretAndImageSetChangesTakenToCluster(t *testing.T) {
	s, sealer := clusterEnv(t)
	put(t, s, "hive.openshift.io", "ClusterImageSet", "", "ocp-4.17", "cis-uid",
		`{"spec":{"releaseImage":"quay.io/openshift-release-dev/ocp-release:4.17.0-x86_64"}}`)
	put(t, s, "hive.openshift.io", "ClusterImageSet", "", "ocp-4.19", "cis-uid-2",
		`{"spec":{"releaseImage":"quay.io/openshift-release-dev/ocp-release:4.19.2-x86_64"}}`)
	put(t, s, "hive.openshift.io", "ClusterDeployment", "ns", "c1", "cd-uid",
		`{"spec":{"clusterName":"c1","baseDomain":"example.com","pullSecretRef":{"name":"ps"}}}`)
	put(t, s, "extensions.hive.openshift.io", "AgentClusterInstall", "ns", "c1", aciUID,
		`{"spec":{"clusterDeploymentRef":{"name":"c1"},"imageSetRef":{"name":"ocp-4.17"},"provisionRequirements":{"controlPlaneAgents":3}}}`)
	aci := engine.ObjectRef{Group: "extensions.hive.openshift.io", Kind: "AgentClusterInstall", Namespace: "ns", Name: "c1"}
	waitFor(t, s, "the cluster", func(m *engine.Model) bool {
		c, ok := m.Cluster(aciUID)
		return ok && c.OpenshiftVersion == "4.17.0" && c.ControlPlaneCount == 3 && clusterPullSecret(m) == `{"auths":{}}`
	})

	const ps2 = `{"auths":{"quay.io":{"auth":"dXNlcjpwYXNz"}}}`
	setPullSecret(t, s, sealer, ps2)
	waitFor(t, s, "the Secret's new data in the cluster", func(m *engine.Model) bool { return clusterPullSecret(m) == ps2 })

	patch(t, s, engine.ObjectRef{Group: "hive.openshift.io", Kind: "ClusterImageSet", Name: "ocp-4.17"}, func(b map[string]any) {
		b["spec"].(map[string]any)["releaseImage"] = "quay.io/openshift-release-dev/ocp-release:4.17.3-x86_64"
	}, true)
	waitFor(t, s, "the ClusterImageSet's new release in the cluster", func(m *engine.Model) bool {
		c, _ := m.Cluster(aciUID)
		return c.OpenshiftVersion == "4.17.3"
	})

	patch(t, s, aci, func(b map[string]any) {
		sp := b["spec"].(map[string]any)
		sp["imageSetRef"] = map[string]any{"name": "ocp-4.19"}
		sp["provisionRequirements"] = map[string]any{"controlPlaneAgents": 1}
	}, true)
	waitFor(t, s, "the other ClusterImageSet and the control plane count in the cluster", func(m *engine.Model) bool {
		c, _ := m.Cluster(aciUID)
		return c.OpenshiftVersion == "4.19.2" && c.ControlPlaneCount == 1
	})

	var status string
	s.Read(func(m *engine.Model) { c, _ := m.Cluster(aciUID); status = c.Status })
	apply(t, s, &engine.SetClusterStatus{ID: aciUID, Status: engine.ClusterStatusInstalling, StatusInfo: "Installation in progress", From: []string{status}})
	setPullSecret(t, s, sealer, `{"auths":{"other.io":{"auth":"dXNlcjpwYXNz"}}}`)
	want := "The Spec could not be synced due to backend error: Cluster " + aciUID +
		" is in installing state, cluster can be updated only in one of [insufficient ready pending-for-input adding-hosts]"
	waitFor(t, s, "the pull secret change refused after the start", func(m *engine.Model) bool {
		st, reason, msg := aciCondition(m, "SpecSynced")
		completed, creason, _ := aciCondition(m, "Completed")
		return st == "False" && reason == "BackendError" && msg == want && completed == "False" && creason == "InstallationInProgress"
	})
	s.Read(func(m *engine.Model) {
		if got := clusterPullSecret(m); got != ps2 {
			t.Errorf("the cluster's pull secret changed after the start: %q", got)
		}
	})
	// The ClusterImageSet may go once the installation started.
	apply(t, s, &engine.DeleteObject{Ref: engine.ObjectRef{Group: "hive.openshift.io", Kind: "ClusterImageSet", Name: "ocp-4.19"}})
	setPullSecret(t, s, sealer, ps2)
	waitFor(t, s, "SpecSynced again once the Secret is as it was", func(m *engine.Model) bool {
		st, reason, _ := aciCondition(m, "SpecSynced")
		return st == "True" && reason == "SyncOK"
	})
}

// As upstream's manifest sync: the keys of the ACI's ConfigMap become the
// cluster's openshift manifests, and a key dropped from the ConfigMap
// deletes its manifest.
func TestManifestDroppedFromConfigMapDeleted(t *testing.T) {
	s, _ := clusterEnv(t)
	put(t, s, "", "ConfigMap", "ns", "mf", "cm-uid",
		`{"data":{"a.yaml":"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n","b.yaml":"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n"}}`)
	putCluster(t, s, `{"spec":{"clusterDeploymentRef":{"name":"c1"},"imageSetRef":{"name":"ocp-4.17"},"provisionRequirements":{"controlPlaneAgents":1},
		"manifestsConfigMapRef":{"name":"mf"}}}`)
	waitFor(t, s, "both manifests", func(m *engine.Model) bool { return manifestFiles(m) == "openshift/a.yaml,openshift/b.yaml" })
	patch(t, s, engine.ObjectRef{Kind: "ConfigMap", Namespace: "ns", Name: "mf"}, func(b map[string]any) {
		delete(b["data"].(map[string]any), "b.yaml")
	}, false)
	waitFor(t, s, "b.yaml deleted", func(m *engine.Model) bool { return manifestFiles(m) == "openshift/a.yaml" })
}

// The ACI records the manifests its ConfigMaps made: once it names no
// ConfigMap any more (manifestsConfigMapRefs emptied), they are deleted,
// and a manifest stored otherwise (the REST API's, in the manifests
// folder) stays.
func TestManifestsOfRemovedConfigMapRefsDeleted(t *testing.T) {
	s, _ := clusterEnv(t)
	put(t, s, "", "ConfigMap", "ns", "mf1", "cm-uid-1", `{"data":{"a.yaml":"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"}}`)
	put(t, s, "", "ConfigMap", "ns", "mf2", "cm-uid-2", `{"data":{"b.yaml":"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n"}}`)
	putCluster(t, s, `{"spec":{"clusterDeploymentRef":{"name":"c1"},"imageSetRef":{"name":"ocp-4.17"},"provisionRequirements":{"controlPlaneAgents":1},
		"manifestsConfigMapRefs":[{"name":"mf1"},{"name":"mf2"}]}}`)
	aci := engine.ObjectRef{Group: "extensions.hive.openshift.io", Kind: "AgentClusterInstall", Namespace: "ns", Name: "c1"}
	recorded := func(m *engine.Model) string {
		o, _ := m.Object(aci.Key())
		var b struct {
			Metadata struct{ Annotations map[string]string }
		}
		_ = json.Unmarshal(o.Body, &b)
		return b.Metadata.Annotations["rackboot.io/configmap-manifests"]
	}
	waitFor(t, s, "both manifests, recorded", func(m *engine.Model) bool {
		return manifestFiles(m) == "openshift/a.yaml,openshift/b.yaml" && recorded(m) == "a.yaml,b.yaml"
	})
	apply(t, s, &engine.PutManifest{ClusterID: aciUID, Manifest: engine.Manifest{Folder: "manifests", FileName: "user.yaml",
		Content: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: user\n")}})
	patch(t, s, aci, func(b map[string]any) { b["spec"].(map[string]any)["manifestsConfigMapRefs"] = []any{} }, true)
	waitFor(t, s, "the ConfigMaps' manifests deleted, the record gone", func(m *engine.Model) bool {
		return manifestFiles(m) == "manifests/user.yaml" && recorded(m) == ""
	})
}

// RequirementsMet counts the Agents provisionRequirements asks for now:
// a change of workerAgents before the start changes what the
// installation waits for.
func TestProvisionRequirementsChangeTaken(t *testing.T) {
	s, _ := clusterEnv(t)
	putCluster(t, s, `{"spec":{"clusterDeploymentRef":{"name":"c1"},"imageSetRef":{"name":"ocp-4.17"},"provisionRequirements":{"controlPlaneAgents":3}}}`)
	aci := engine.ObjectRef{Group: "extensions.hive.openshift.io", Kind: "AgentClusterInstall", Namespace: "ns", Name: "c1"}
	waitFor(t, s, "the cluster synced", func(m *engine.Model) bool {
		o, _ := m.Object(aci.Key())
		_, ok := m.Cluster(aciUID)
		return ok && strings.Contains(string(o.Body), `"rackboot.io/synced-generation"`)
	})
	// The cluster ready (as its hosts would make it), none registered.
	var status string
	s.Read(func(m *engine.Model) { c, _ := m.Cluster(aciUID); status = c.Status })
	apply(t, s, &engine.SetClusterStatus{ID: aciUID, Status: engine.ClusterStatusReady, StatusInfo: "Cluster ready to be installed", From: []string{status}})
	waitFor(t, s, "RequirementsMet for 3 Agents", func(m *engine.Model) bool {
		_, reason, msg := aciCondition(m, "RequirementsMet")
		return reason == "InsufficientAgents" && msg == "The cluster currently requires 3 agents but only 0 have registered"
	})
	patch(t, s, aci, func(b map[string]any) {
		b["spec"].(map[string]any)["provisionRequirements"] = map[string]any{"controlPlaneAgents": 3, "workerAgents": 2}
	}, true)
	waitFor(t, s, "RequirementsMet for 5 Agents", func(m *engine.Model) bool {
		_, reason, msg := aciCondition(m, "RequirementsMet")
		return reason == "InsufficientAgents" && msg == "The cluster currently requires 5 agents but only 0 have registered"
	})
}

// manifestFiles is the cluster's manifests, "folder/file" in order.
func manifestFiles(m *engine.Model) string {
	c, _ := m.Cluster(aciUID)
	var out []string
	for _, mf := range c.Manifests {
		out = append(out, mf.Folder+"/"+mf.FileName)
	}
	return strings.Join(out, ",")
}
