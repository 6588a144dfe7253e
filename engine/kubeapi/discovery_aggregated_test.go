package kubeapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
)

// /api and /apis answer aggregated discovery (apidiscovery.k8s.io/v2)
// when asked with client-go's Accept header, and client-go's own
// discovery client reads every served kind from it.
func TestAggregatedDiscovery(t *testing.T) {
	f := newFixture(t, 0)
	for path, want := range map[string][2]string{
		"/api":  {"", "secrets"},
		"/apis": {"agent-install.openshift.io", "agents"},
	} {
		req, _ := http.NewRequest(http.MethodGet, f.srv.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+admin)
		req.Header.Set("Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); ct != "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList" {
			t.Fatalf("%s: Content-Type %q", path, ct)
		}
		var list apidiscoveryv2.APIGroupDiscoveryList
		if err := json.Unmarshal(b, &list); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		i := slices.IndexFunc(list.Items, func(g apidiscoveryv2.APIGroupDiscovery) bool { return g.Name == want[0] })
		if i < 0 || len(list.Items[i].Versions) != 1 {
			t.Fatalf("%s: no group %q in %s", path, want[0], b)
		}
		res := list.Items[i].Versions[0].Resources
		j := slices.IndexFunc(res, func(r apidiscoveryv2.APIResourceDiscovery) bool { return r.Resource == want[1] })
		if j < 0 || res[j].Scope != apidiscoveryv2.ScopeNamespace || res[j].ResponseKind == nil {
			t.Errorf("%s: resource %s: %+v", path, want[1], res)
		}
	}

	dc, err := discovery.NewDiscoveryClientForConfig(&rest.Config{Host: f.srv.URL, BearerToken: admin})
	if err != nil {
		t.Fatal(err)
	}
	_, lists, err := dc.ServerGroupsAndResources()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, l := range lists {
		for _, r := range l.APIResources {
			got[l.GroupVersion+" "+r.Name] = true
		}
	}
	for _, want := range []string{"v1 namespaces", "v1 secrets", "v1 events", "agent-install.openshift.io/v1beta1 infraenvs",
		"agent-install.openshift.io/v1beta1 agents/status", "hive.openshift.io/v1 clusterdeployments",
		"extensions.hive.openshift.io/v1beta1 agentclusterinstalls", "metal3.io/v1alpha1 baremetalhosts"} {
		if !got[want] {
			t.Errorf("client-go discovery lacks %s", want)
		}
	}
}
