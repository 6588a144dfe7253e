package api

import (
	"strings"
	"testing"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
)

// A host of an infra-env without a cluster is discovered unbound, then
// bound to a cluster and unbound again.
func TestLateBinding(t *testing.T) {
	e := newMemEnv(t)
	ie := e.createInfraEnv("")
	if ie.ClusterID != "" || ie.CPUArchitecture != "x86_64" {
		t.Fatalf("infra-env %+v", ie)
	}
	h := agentFlow(t, e, ie.ID)
	checkDiscovered(t, h, models.HostStatusKnownUnbound, models.HostStatusInsufficientUnbound)
	if h.ClusterID != "" {
		t.Fatalf("unbound host has cluster %q", h.ClusterID)
	}
	c := e.createCluster()
	path := "/infra-envs/" + ie.ID + "/hosts/" + testHostID
	var bound models.APIHost
	e.must(adminCred(), 200, "POST", path+"/actions/bind", map[string]string{"cluster_id": c.ID}).decode(t, &bound)
	if bound.ClusterID != c.ID || strings.HasSuffix(bound.Status, "-unbound") {
		t.Errorf("bound host: cluster %q status %q", bound.ClusterID, bound.Status)
	}
	var cl models.Cluster
	e.must(adminCred(), 200, "GET", "/clusters/"+c.ID, nil).decode(t, &cl)
	if cl.TotalHostCount != 1 || len(cl.Hosts) != 1 || cl.Hosts[0].ID != testHostID {
		t.Errorf("cluster hosts %d %+v", cl.TotalHostCount, cl.Hosts)
	}
	e.wantError(e.do(adminCred(), "DELETE", "/clusters/"+c.ID, nil), 409, "still has hosts")

	var unbound models.APIHost
	e.must(adminCred(), 200, "POST", path+"/actions/unbind", nil).decode(t, &unbound)
	if unbound.ClusterID != "" || !strings.HasSuffix(unbound.Status, "-unbound") {
		t.Errorf("unbound host: cluster %q status %q", unbound.ClusterID, unbound.Status)
	}
	var evs []models.Event
	e.must(adminCred(), 200, "GET", "/events?infra_env_id="+ie.ID, nil).decode(t, &evs)
	var msgs []string
	for _, ev := range evs {
		msgs = append(msgs, ev.Name)
	}
	all := strings.Join(msgs, " ")
	if !strings.Contains(all, "host_bind_succeeded") || !strings.Contains(all, "host_unbind_succeeded") {
		t.Errorf("events %v", msgs)
	}
	e.must(adminCred(), 204, "DELETE", "/clusters/"+c.ID, nil)
	e.must(adminCred(), 204, "DELETE", path, nil)
	e.must(adminCred(), 204, "DELETE", "/infra-envs/"+ie.ID, nil)
	var n int
	e.store.Read(func(m *engine.Model) {
		for range m.Secrets() {
			n++
		}
	})
	if n != 0 {
		t.Errorf("%d pull secrets left after deleting their owners", n)
	}
}

// A host is only bound to a cluster of its infra-env's CPU architecture.
func TestBindArchitecture(t *testing.T) {
	e := newMemEnv(t)
	var ie models.InfraEnv
	e.must(adminCred(), 201, "POST", "/infra-envs", map[string]any{"name": "arm", "pull_secret": testPullSecret,
		"cpu_architecture": "aarch64"}).decode(t, &ie)
	tok := e.agentConfig(ie.ID).Token
	e.must(cred{agent: tok}, 201, "POST", "/infra-envs/"+ie.ID+"/hosts", models.HostCreateParams{HostID: testHostID})
	c := e.createCluster()
	e.wantError(e.do(adminCred(), "POST", "/infra-envs/"+ie.ID+"/hosts/"+testHostID+"/actions/bind",
		map[string]string{"cluster_id": c.ID}), 400, "does not match")
	e.wantError(e.do(adminCred(), "POST", "/infra-envs/"+ie.ID+"/hosts/"+testHostID+"/actions/bind",
		map[string]string{"cluster_id": "00000000-0000-4000-8000-000000000000"}), 404, "not found")
}

// Pull secrets and tokens never reach logs, events or error text.
func TestSecretsStayOut(t *testing.T) {
	e := newMemEnv(t)
	runBoundFlow(t, e)
	var ieID string
	e.store.Read(func(m *engine.Model) {
		for ie := range m.InfraEnvs() {
			ieID = ie.ID
			if strings.Contains(ie.PullSecretRef, "auths") || ie.PullSecretRef == "" {
				t.Errorf("pull secret ref %q", ie.PullSecretRef)
			}
		}
	})
	tok := e.agentConfig(ieID).Token
	// Failures that carry secrets in the request.
	e.do(cred{agent: tok + "x"}, "GET", "/infra-envs/"+ieID+"/hosts", nil)
	e.do(cred{}, "GET", "/clusters?api_key="+tok, nil)
	e.do(adminCred(), "PATCH", "/infra-envs/"+ieID, map[string]any{"pull_secret": testPullSecret,
		"ignition_config_override": `{"ignition":{"version":"1"}}`})
	e.do(adminCred(), "POST", "/clusters", map[string]any{"name": "x", "openshift_version": "4", "pull_secret": `{"auths":` + testPullSecret})
	var u models.PresignedURL
	e.must(adminCred(), 200, "GET", "/infra-envs/"+ieID+"/downloads/image-url", nil).decode(t, &u)
	imageTok := u.URL[strings.Index(u.URL, "image_token=")+len("image_token="):]
	imageTok = imageTok[:strings.IndexByte(imageTok+"&", '&')]
	e.do(cred{}, "GET", "/infra-envs/"+ieID+"/downloads/files?file_name=nope&image_token="+imageTok, nil)

	var events strings.Builder
	e.store.Read(func(m *engine.Model) {
		for ev := range m.Events(0) {
			events.WriteString(ev.Message + " " + ev.Name + "\n")
			for k, v := range ev.Props {
				events.WriteString(k + "=" + v + "\n")
			}
		}
	})
	// Response bodies, except the downloads that must hold them.
	var errs strings.Builder
	for _, line := range strings.Split(e.seen.String(), "\n") {
		if strings.Contains(line, `"kind":"Error"`) {
			errs.WriteString(line + "\n")
		}
	}
	for name, hay := range map[string]string{"logs": e.logs.String(), "events": events.String(), "errors": errs.String()} {
		for what, secret := range map[string]string{"pull secret": "c2VjcmV0LXB1bGwtc2VjcmV0LXZhbHVl",
			"agent token": tok, "image token": imageTok, "admin token": testAdmin} {
			if strings.Contains(hay, secret) {
				t.Errorf("%s in %s", what, name)
			}
		}
	}
	if !strings.Contains(e.logs.String(), "api request") || events.Len() == 0 || errs.Len() == 0 {
		t.Fatalf("nothing captured: the test would pass vacuously")
	}
}
