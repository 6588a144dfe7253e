package kubeapi

import (
	"maps"
	"net/http"
	"strings"
)

// serveOpenAPI answers /openapi/v2 (empty) and /openapi/v3 (the index of group versions) and
// /openapi/v3/<api/v1 | apis/group/version>: a document whose PATCH
// operations carry x-kubernetes-group-version-kind and the
// fieldValidation query parameter, which is what kubectl looks for before
// it asks the server to validate (kubectl apply, create -f), and whose
// components.schemas hold the kinds' schemas from schemas/*.schema (what
// kubectl explain prints).
func (h *Handler) serveOpenAPI(w http.ResponseWriter, r *http.Request) bool {
	path := strings.TrimSuffix(r.URL.Path, "/")
	if r.Method == http.MethodGet && path == "/openapi/v2" {
		// The OpenAPI v2 document, empty: kubectl reads it only to
		// validate on the client a kind whose v3 document does not
		// declare the fieldValidation parameter, which is every kind the
		// server does not serve. An empty document lets kubectl go on to
		// its own answer for those ("resource mapping not found ...
		// ensure CRDs are installed first"), as against a kube-apiserver
		// (whose v2 document does not know the kind either); without it
		// kubectl stops at "failed to download openapi". The body is the
		// empty protobuf message (gnostic's openapi_v2.Document), the
		// form kubectl asks for.
		w.Header().Set("Content-Type", "application/com.github.proto-openapi.spec.v2.v1.0+protobuf")
		w.WriteHeader(http.StatusOK)
		return true
	}
	if r.Method != http.MethodGet || !strings.HasPrefix(path, "/openapi/v3") {
		return false
	}
	if path == "/openapi/v3" {
		paths := map[string]any{}
		for gv := range h.byGV {
			p := "apis/" + gv
			if gv == "v1" {
				p = "api/v1"
			}
			paths[p] = map[string]any{"serverRelativeURL": "/openapi/v3/" + p}
		}
		writeJSON(w, http.StatusOK, map[string]any{"paths": paths})
		return true
	}
	rest := strings.TrimPrefix(path, "/openapi/v3/")
	gv := strings.TrimPrefix(strings.TrimPrefix(rest, "api/"), "apis/")
	if h.byGV[gv] == nil {
		return false
	}
	writeJSON(w, http.StatusOK, h.openAPIDoc(gv))
	return true
}

func (h *Handler) openAPIDoc(gv string) map[string]any {
	params := []any{
		map[string]any{"name": "fieldValidation", "in": "query", "schema": map[string]any{"type": "string", "uniqueItems": true}},
		map[string]any{"name": "fieldManager", "in": "query", "schema": map[string]any{"type": "string", "uniqueItems": true}},
		map[string]any{"name": "dryRun", "in": "query", "schema": map[string]any{"type": "string", "uniqueItems": true}},
	}
	paths, schemas := map[string]any{}, map[string]any{}
	for _, r := range h.res {
		if r.GroupVersion() != gv {
			continue
		}
		gvk := map[string]any{"group": r.Group, "version": r.Version, "kind": r.Kind}
		op := func(id string) map[string]any {
			return map[string]any{"operationId": id + r.Kind, "parameters": params, "x-kubernetes-group-version-kind": gvk,
				"responses": map[string]any{"200": map[string]any{"description": "OK"}}}
		}
		base := "/apis/" + gv
		if r.Group == "" {
			base = "/api/v1"
		}
		if r.Namespaced {
			base += "/namespaces/{namespace}"
		}
		paths[base+"/"+r.Plural] = map[string]any{"post": op("create")}
		if r.Schema != nil {
			schemas[schemaName(r)] = servedSchema(r)
		}
		paths[base+"/"+r.Plural+"/{name}"] = map[string]any{"patch": op("patch"), "put": op("replace")}
	}
	return map[string]any{
		"openapi": "3.0.0", "info": map[string]any{"title": "rackboot", "version": "v1.32.0"},
		"paths": paths, "components": map[string]any{"schemas": schemas},
	}
}

// servedSchema is r's schema as kube-apiserver serves a CRD's: tagged with
// the kind's group, version and kind, metadata described.
func servedSchema(r *Resource) map[string]any {
	s := maps.Clone(r.Schema)
	props, _ := s["properties"].(map[string]any)
	props = maps.Clone(props)
	if props == nil {
		props = map[string]any{}
	}
	props["metadata"] = metadataSchema()
	s["properties"] = props
	s["x-kubernetes-group-version-kind"] = []any{map[string]any{"group": r.Group, "version": r.Version, "kind": r.Kind}}
	return s
}
