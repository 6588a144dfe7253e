package kubeapi

import (
	"net/http"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// serveDiscovery answers /api, /apis, /api/v1, /apis/group/version and
// /version; false for any other path. /api and /apis answer in the
// aggregated form (apidiscovery.k8s.io/v2) when the client asks for it, as
// kubectl does first, and in the classic documents otherwise.
func (h *Handler) serveDiscovery(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodGet {
		return false
	}
	path := strings.TrimSuffix(r.URL.Path, "/")
	switch {
	case path == "/version":
		writeJSON(w, http.StatusOK, map[string]string{
			"major": "1", "minor": "32", "gitVersion": "v1.32.0-rackboot", "platform": "linux/amd64",
		})
	case (path == "/api" || path == "/apis") && wantsAggregated(r):
		h.writeAggregated(w, path == "/api")
	case path == "/api":
		writeJSON(w, http.StatusOK, metav1.APIVersions{
			TypeMeta: metav1.TypeMeta{Kind: "APIVersions"}, Versions: []string{"v1"},
			ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{{ClientCIDR: "0.0.0.0/0", ServerAddress: r.Host}},
		})
	case path == "/apis":
		writeJSON(w, http.StatusOK, h.groupList())
	case path == "/api/v1" || strings.Count(path, "/") == 3 && strings.HasPrefix(path, "/apis/"):
		gv := strings.TrimPrefix(strings.TrimPrefix(path, "/api/"), "/apis/")
		list, ok := h.resourceList(gv)
		if !ok {
			return false
		}
		writeJSON(w, http.StatusOK, list)
	default:
		return false
	}
	return true
}

func (h *Handler) groupList() metav1.APIGroupList {
	groups := map[string]*metav1.APIGroup{}
	var names []string
	for _, r := range h.res {
		if r.Group == "" {
			continue
		}
		g := groups[r.Group]
		if g == nil {
			g = &metav1.APIGroup{Name: r.Group}
			groups[r.Group] = g
			names = append(names, r.Group)
		}
		if len(g.Versions) == 0 {
			gv := metav1.GroupVersionForDiscovery{GroupVersion: r.GroupVersion(), Version: r.Version}
			g.Versions = []metav1.GroupVersionForDiscovery{gv}
			g.PreferredVersion = gv
		}
	}
	sort.Strings(names)
	list := metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}}
	for _, n := range names {
		list.Groups = append(list.Groups, *groups[n])
	}
	return list
}

var verbs = metav1.Verbs{"create", "delete", "get", "list", "patch", "update", "watch"}

func (h *Handler) resourceList(gv string) (metav1.APIResourceList, bool) {
	kinds := h.byGV[gv]
	if kinds == nil {
		return metav1.APIResourceList{}, false
	}
	list := metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}, GroupVersion: gv}
	for _, r := range h.res {
		if r.GroupVersion() != gv {
			continue
		}
		list.APIResources = append(list.APIResources, metav1.APIResource{
			Name: r.Plural, SingularName: r.Singular, Namespaced: r.Namespaced, Kind: r.Kind,
			Verbs: verbs, ShortNames: r.ShortNames,
		})
		if r.Status {
			list.APIResources = append(list.APIResources, metav1.APIResource{
				Name: r.Plural + "/status", Namespaced: r.Namespaced, Kind: r.Kind, Verbs: metav1.Verbs{"get", "patch", "update"},
			})
		}
	}
	return list, true
}
