package kubeapi

import (
	"encoding/json"
	"net/http"
	"strings"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// aggregatedV2 is the media type of aggregated discovery (v2), which
// kubectl asks /api and /apis for first.
const aggregatedV2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

// wantsAggregated reports whether r's Accept header asks for aggregated
// discovery v2 (client-go lists it, with v2beta1 and plain JSON after it).
func wantsAggregated(r *http.Request) bool {
	for _, a := range strings.Split(r.Header.Get("Accept"), ",") {
		p := map[string]string{}
		for _, kv := range strings.Split(a, ";")[1:] {
			k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
			p[k] = v
		}
		if p["g"] == "apidiscovery.k8s.io" && p["v"] == "v2" && p["as"] == "APIGroupDiscoveryList" {
			return true
		}
	}
	return false
}

// writeAggregated answers /api (legacy: the core group) or /apis in the
// aggregated form: every group, version and resource in one document.
func (h *Handler) writeAggregated(w http.ResponseWriter, legacy bool) {
	list := apidiscoveryv2.APIGroupDiscoveryList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupDiscoveryList", APIVersion: "apidiscovery.k8s.io/v2"}}
	index := map[string]int{}
	for _, r := range h.res {
		if (r.Group == "") != legacy {
			continue
		}
		i, ok := index[r.Group]
		if !ok {
			i = len(list.Items)
			index[r.Group] = i
			list.Items = append(list.Items, apidiscoveryv2.APIGroupDiscovery{
				ObjectMeta: metav1.ObjectMeta{Name: r.Group},
				Versions:   []apidiscoveryv2.APIVersionDiscovery{{Version: r.Version, Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent}},
			})
		}
		v := &list.Items[i].Versions[0]
		v.Resources = append(v.Resources, resourceDiscovery(r))
	}
	w.Header().Set("Content-Type", aggregatedV2)
	w.WriteHeader(http.StatusOK)
	_ = json.NewEncoder(w).Encode(list)
}

// resourceDiscovery is r's entry of aggregated discovery.
func resourceDiscovery(r *Resource) apidiscoveryv2.APIResourceDiscovery {
	gvk := &metav1.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind}
	scope := apidiscoveryv2.ScopeCluster
	if r.Namespaced {
		scope = apidiscoveryv2.ScopeNamespace
	}
	d := apidiscoveryv2.APIResourceDiscovery{
		Resource: r.Plural, ResponseKind: gvk, Scope: scope, SingularResource: r.Singular,
		Verbs: verbs, ShortNames: r.ShortNames,
	}
	if r.Status {
		d.Subresources = []apidiscoveryv2.APISubresourceDiscovery{{Subresource: "status", ResponseKind: gvk, Verbs: []string{"get", "patch", "update"}}}
	}
	return d
}
