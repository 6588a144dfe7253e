package acm_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/acm"
	"github.com/rackboot/rackboot/engine/enginetest"
)

// As upstream's webhook, an InfraEnv's clusterRef cannot change.
func TestInfraEnvClusterRefImmutable(t *testing.T) {
	s := enginetest.NewStore()
	admit := acm.Admission(s)
	ref := engine.ObjectRef{Group: "agent-install.openshift.io", Kind: "InfraEnv", Namespace: "ns", Name: "ie"}
	cur := engine.Object{ObjectRef: ref, UID: uid, Body: json.RawMessage(`{"spec":{"clusterRef":{"name":"c1","namespace":"ns"}}}`)}
	next := cur
	next.Body = json.RawMessage(`{"spec":{"clusterRef":{"name":"test","namespace":"ns"},"sshAuthorizedKey":"k"}}`)
	if err := admit(&cur, next); err == nil || err.Error() != "Attempted to change Spec.ClusterRef which is immutable after InfraEnv creation." {
		t.Errorf("clusterRef change: %v", err)
	}
	next.Body = json.RawMessage(`{"spec":{"clusterRef":{"name":"c1"},"sshAuthorizedKey":"k"}}`)
	if err := admit(&cur, next); err != nil {
		t.Errorf("another field: %v", err)
	}
}

// As hive's webhook, a ClusterDeployment's spec is immutable but for its
// mutable fields (agentSelector, installed, clusterMetadata...); the
// refusal names the changed fields.
func TestClusterDeploymentSpecImmutable(t *testing.T) {
	admit := acm.Admission(enginetest.NewStore())
	ref := engine.ObjectRef{Group: "hive.openshift.io", Kind: "ClusterDeployment", Namespace: "ns", Name: "cd"}
	cur := engine.Object{ObjectRef: ref, UID: uid, Body: json.RawMessage(`{"spec":{"clusterName":"a","baseDomain":"example.com",` +
		`"platform":{"agentBareMetal":{"agentSelector":{"matchLabels":{"x":"1"}}}}}}`)}
	next := cur
	next.Body = json.RawMessage(`{"spec":{"clusterName":"b","baseDomain":"example.com","installed":true,` +
		`"platform":{"agentBareMetal":{"agentSelector":{"matchLabels":{"x":"2"}}}}}}`)
	err := admit(&cur, next)
	if err == nil || !strings.HasPrefix(err.Error(), "Attempted to change ClusterDeployment.Spec which is immutable except for CertificateBundles,ClusterMetadata,") ||
		!strings.HasSuffix(err.Error(), "fields. Unsupported change: \nClusterName: (a => b)") {
		t.Errorf("clusterName change: %v", err)
	}
	next.Body = json.RawMessage(`{"spec":{"clusterName":"a","baseDomain":"example.com","installed":true,` +
		`"clusterMetadata":{"clusterID":"x"},"platform":{"agentBareMetal":{"agentSelector":{"matchLabels":{"x":"2"}}}}}}`)
	if err := admit(&cur, next); err != nil {
		t.Errorf("mutable fields: %v", err)
	}
}

// As upstream's webhook, an Agent's clusterDeploymentName cannot change
// while its host installs; before, it can.
func TestAgentClusterDeploymentNameDuringInstall(t *testing.T) {
	s := enginetest.NewStore()
	admit := acm.Admission(s)
	apply(t, s, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: uid, Name: "ie"}})
	apply(t, s, &engine.RegisterHost{Host: engine.Host{ID: hostID, InfraEnvID: uid, Status: "known-unbound"}})
	ref := engine.ObjectRef{Group: "agent-install.openshift.io", Kind: "Agent", Namespace: "ns", Name: hostID}
	cur := engine.Object{ObjectRef: ref, UID: "a", Body: json.RawMessage(`{"spec":{"clusterDeploymentName":{"name":"c1","namespace":"ns"}}}`)}
	next := cur
	next.Body = json.RawMessage(`{"spec":{"clusterDeploymentName":{"name":"c2","namespace":"ns"}}}`)
	if err := admit(&cur, next); err != nil {
		t.Errorf("before the installation: %v", err)
	}
	apply(t, s, &engine.SetHostStatus{ID: hostID, Status: "installing-in-progress"})
	if err := admit(&cur, next); err == nil || err.Error() != "Failed validation: Attempted to change Spec.ClusterDeploymentName which is immutable during Agent installation." {
		t.Errorf("during the installation: %v", err)
	}
}
