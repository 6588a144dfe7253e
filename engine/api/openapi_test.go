package api

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

type openAPIParam struct {
	Name string `json:"name"`
	In   string `json:"in"`
}

type openAPIDocument struct {
	OpenAPI string `json:"openapi"`
	Paths   map[string]map[string]struct {
		OperationID string                     `json:"operationId"`
		Parameters  []openAPIParam             `json:"parameters"`
		Responses   map[string]json.RawMessage `json:"responses"`
		Security    *[]map[string][]string     `json:"security"`
	} `json:"paths"`
}

// Every route is in the OpenAPI document and every operation of the
// document is a route, with its path parameters and its access.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	e := newMemEnv(t)
	var doc openAPIDocument
	e.must(cred{}, 200, "GET", "/openapi.json", nil).decode(t, &doc)
	if !strings.HasPrefix(doc.OpenAPI, "3.") {
		t.Fatalf("openapi %q", doc.OpenAPI)
	}
	s, err := newServer(Options{Store: e.store, AdminToken: "x", Keys: e.keys, ServiceURL: "http://h"})
	if err != nil {
		t.Fatal(err)
	}
	var fromRoutes, fromDoc []string
	params := regexp.MustCompile(`\{([a-z_]+)\}`)
	ops := map[string]bool{}
	for _, rt := range s.routes() {
		key := rt.method + " " + rt.path
		fromRoutes = append(fromRoutes, key)
		op, ok := doc.Paths[rt.path][strings.ToLower(rt.method)]
		if !ok {
			continue
		}
		if ops[op.OperationID] || op.OperationID == "" {
			t.Errorf("%s: operationId %q missing or repeated", key, op.OperationID)
		}
		ops[op.OperationID] = true
		for _, m := range params.FindAllStringSubmatch(rt.path, -1) {
			if !slices.ContainsFunc(op.Parameters, func(p openAPIParam) bool { return p.Name == m[1] && p.In == "path" }) {
				t.Errorf("%s: path parameter %s not documented", key, m[1])
			}
		}
		open := op.Security != nil && len(*op.Security) == 0
		if open != (rt.access == public) {
			t.Errorf("%s: documented public=%t, route access %d", key, open, rt.access)
		}
		if _, ok := op.Responses[strconv.Itoa(rt.ok)]; !ok {
			t.Errorf("%s: success status %d not documented", key, rt.ok)
		}
		if rt.access != public {
			for _, code := range []string{"401", "403"} {
				doc, ok := op.Responses[code]
				if !ok {
					t.Errorf("%s: %s not documented", key, code)
				}
				if infra := strings.Contains(string(doc), "#/components/schemas/InfraError"); infra != rt.infraErr() {
					t.Errorf("%s: %s documented as InfraError=%t, the route answers InfraError=%t", key, code, infra, rt.infraErr())
				}
			}
		}
	}
	for path, methods := range doc.Paths {
		for m := range methods {
			fromDoc = append(fromDoc, strings.ToUpper(m)+" "+path)
		}
	}
	slices.Sort(fromRoutes)
	slices.Sort(fromDoc)
	if !slices.Equal(fromRoutes, fromDoc) {
		t.Errorf("routes and OpenAPI operations differ:\nroutes:  %v\nopenapi: %v", fromRoutes, fromDoc)
	}
}
