package kubeapi

import (
	"reflect"
	"strings"
	"testing"
)

// The compact form becomes the OpenAPI v3 schema kubectl explain reads:
// nesting, lists of objects, maps, required fields, item attributes.
func TestParseSchemas(t *testing.T) {
	kinds, err := parseSchemas("# a comment\nkind Thing example.io/v1 -- A thing.\n" +
		"spec object ! -- Its spec.\n" +
		"  nets []string format=cidr maxItems=2 -- Networks.\n" +
		"  ports []object -- Ports.\n" +
		"    number integer ! minimum=1 maximum=65535 -- A port.\n" +
		"    proto string enum=|tcp|udp default=tcp -- A protocol.\n" +
		"  labels map[string] -- Labels.\n" +
		"  re string pattern=^a b$ -- A pattern with a space.\n" +
		"status open -- Its status.\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(kinds) != 1 || kinds[0].kind != "Thing" || kinds[0].gv != "example.io/v1" {
		t.Fatalf("kinds %+v", kinds)
	}
	s := kinds[0].schema
	props := s["properties"].(map[string]any)
	for _, k := range []string{"apiVersion", "kind", "metadata", "spec", "status"} {
		if props[k] == nil {
			t.Errorf("no %s", k)
		}
	}
	if !reflect.DeepEqual(s["required"], []any{"spec"}) {
		t.Errorf("required %v", s["required"])
	}
	spec := props["spec"].(map[string]any)["properties"].(map[string]any)
	want := map[string]any{"type": "array", "description": "Networks.", "maxItems": int64(2), "items": map[string]any{"type": "string", "format": "cidr"}}
	if !reflect.DeepEqual(spec["nets"], want) {
		t.Errorf("nets %v, want %v", spec["nets"], want)
	}
	items := spec["ports"].(map[string]any)["items"].(map[string]any)
	if !reflect.DeepEqual(items["required"], []any{"number"}) {
		t.Errorf("ports' required %v", items["required"])
	}
	port := items["properties"].(map[string]any)["number"].(map[string]any)
	if port["minimum"] != int64(1) || port["maximum"] != int64(65535) {
		t.Errorf("number %v", port)
	}
	proto := items["properties"].(map[string]any)["proto"].(map[string]any)
	if !reflect.DeepEqual(proto["enum"], []any{"", "tcp", "udp"}) || proto["default"] != "tcp" {
		t.Errorf("proto %v", proto)
	}
	if l := spec["labels"].(map[string]any); !reflect.DeepEqual(l["additionalProperties"], map[string]any{"type": "string"}) {
		t.Errorf("labels %v", l)
	}
	if re := spec["re"].(map[string]any); re["pattern"] != "^a b$" {
		t.Errorf("re %v", re)
	}
	if st := props["status"].(map[string]any); st["x-kubernetes-preserve-unknown-fields"] != true {
		t.Errorf("status %v", st)
	}
}

// A mistake in a schema file is an error naming its line.
func TestParseSchemasErrors(t *testing.T) {
	for text, want := range map[string]string{
		"kind A g/v -- A.\nspec object\n":                             "line 2: no description",
		"kind A g/v -- A.\nspec objekt -- S.\n":                       `line 2: unknown type "objekt"`,
		"kind A g/v -- A.\nspec object -- S.\n      x string -- X.\n": "line 3: a field outside a kind or indented too deep",
		"spec object -- S.\n":                                         "line 1: a field outside a kind",
		"kind A g/v -- A.\nspec object -- S.\nspec object -- T.\n":    "line 3: spec declared twice",
		"kind A g/v -- A.\nspec object size=3 -- S.\n":                `line 2: spec: unknown attribute "size"`,
		"kind A -- A.\n": "line 1: want \"kind Kind group/version -- description\"",
	} {
		_, err := parseSchemas(text)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
}
