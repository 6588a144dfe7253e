package kubeapi

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// kindSchema is one kind's OpenAPI v3 schema read from a schema file.
type kindSchema struct {
	kind, gv string
	schema   map[string]any
}

// parseSchemas reads rackboot's compact schema form (schemas/README.md):
//
//	kind InfraEnv agent-install.openshift.io/v1beta1 -- what the kind is
//	spec object ! -- what spec is
//	  proxy object -- a field of spec
//	    httpProxy string format=uri -- a field of proxy
//
// Two spaces of indent per level; a field is "name type [attrs] --
// description"; the description is required. Types: string, integer,
// number, boolean, object (its fields below it), open (an object that
// also keeps undeclared fields), any, int-or-string, map[T] (string keys)
// and []T (T a scalar, object or open; an object's fields below it).
// Attrs: ! (required), enum=a|b|c, format=, default=, minimum=, maximum=,
// minItems=, maxItems=, maxLength=, listType= (atomic, set, map),
// listMapKeys=a,b, mapType= (atomic, granular), pattern= (the rest of the
// line up to " -- "). Enum, format, pattern and maxLength of a []scalar apply to its
// items (of a map[scalar], to its values). apiVersion, kind and metadata are added to every kind.
func parseSchemas(text string) ([]kindSchema, error) {
	var kinds []kindSchema
	// stack[d] is the schema whose properties the fields at depth d go in.
	var stack []map[string]any
	for n, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		def, desc, ok := strings.Cut(line, " -- ")
		if !ok || strings.TrimSpace(desc) == "" {
			return nil, fmt.Errorf("line %d: no description (want \"... -- description\"): %q", n+1, line)
		}
		desc = strings.TrimSpace(desc)
		if k, ok := strings.CutPrefix(def, "kind "); ok {
			f := strings.Fields(k)
			if len(f) != 2 {
				return nil, fmt.Errorf("line %d: want \"kind Kind group/version -- description\"", n+1)
			}
			props := typeMetaSchemas()
			props["metadata"] = metadataSchema()
			s := map[string]any{"type": "object", "description": desc, "properties": props}
			kinds = append(kinds, kindSchema{kind: f[0], gv: f[1], schema: s})
			stack = []map[string]any{s}
			continue
		}
		indent := len(def) - len(strings.TrimLeft(def, " "))
		if len(kinds) == 0 || indent%2 != 0 || indent/2 >= len(stack) {
			return nil, fmt.Errorf("line %d: a field outside a kind or indented too deep: %q", n+1, line)
		}
		depth := indent / 2
		stack = stack[:depth+1]
		name, s, required, err := parseField(strings.TrimSpace(def))
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n+1, err)
		}
		s["description"] = desc
		parent := stack[depth]
		props, _ := parent["properties"].(map[string]any)
		if props == nil {
			props = map[string]any{}
			parent["properties"] = props
		}
		if _, dup := props[name]; dup {
			return nil, fmt.Errorf("line %d: %s declared twice", n+1, name)
		}
		props[name] = s
		if required {
			req, _ := parent["required"].([]any)
			parent["required"] = append(req, name)
		}
		stack = append(stack, fieldsHolder(s))
	}
	return kinds, nil
}

// fieldsHolder is the schema the fields below s go in: s, or its items.
func fieldsHolder(s map[string]any) map[string]any {
	if items, ok := s["items"].(map[string]any); ok {
		return items
	}
	return s
}

// parseField reads "name type attrs...".
func parseField(def string) (name string, s map[string]any, required bool, err error) {
	var pattern string
	if before, p, ok := strings.Cut(def, " pattern="); ok {
		def, pattern = before, p
	}
	f := strings.Fields(def)
	if len(f) < 2 {
		return "", nil, false, fmt.Errorf("want \"name type [attrs] -- description\": %q", def)
	}
	name = f[0]
	s, err = typeSchema(f[1])
	if err != nil {
		return "", nil, false, err
	}
	// Item attributes of a list of scalars go in its items.
	target := s
	if items, ok := s["items"].(map[string]any); ok && items["type"] != "object" {
		target = items
	}
	if vals, ok := s["additionalProperties"].(map[string]any); ok && vals["type"] != "object" {
		target = vals
	}
	if pattern != "" {
		target["pattern"] = pattern
	}
	for _, a := range f[2:] {
		if a == "!" {
			required = true
			continue
		}
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			return "", nil, false, fmt.Errorf("%s: attribute %q is not key=value", name, a)
		}
		if err := setAttr(s, target, k, v); err != nil {
			return "", nil, false, fmt.Errorf("%s: %w", name, err)
		}
	}
	return name, s, required, nil
}

// setAttr sets one attribute on the field s (or target, its items).
func setAttr(s, target map[string]any, k, v string) error {
	switch k {
	case "enum":
		var enum []any
		for _, e := range strings.Split(v, "|") {
			enum = append(enum, scalar(target["type"], e))
		}
		target["enum"] = enum
	case "format":
		target["format"] = v
	case "maxLength":
		i, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("maxLength=%s: %w", v, err)
		}
		target["maxLength"] = i
	case "default":
		s["default"] = scalar(s["type"], v)
	case "listType":
		if s["type"] != "array" || !slices.Contains([]string{"atomic", "set", "map"}, v) {
			return fmt.Errorf("listType=%s: want atomic, set or map on a list", v)
		}
		s["x-kubernetes-list-type"] = v
	case "listMapKeys":
		var keys []any
		for _, k := range strings.Split(v, ",") {
			keys = append(keys, k)
		}
		s["x-kubernetes-list-map-keys"] = keys
	case "mapType":
		if s["type"] != "object" || v != "atomic" && v != "granular" {
			return fmt.Errorf("mapType=%s: want atomic or granular on an object", v)
		}
		s["x-kubernetes-map-type"] = v
	case "minimum", "maximum", "minItems", "maxItems":
		i, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("%s=%s: %w", k, v, err)
		}
		s[k] = i
	default:
		return fmt.Errorf("unknown attribute %q", k)
	}
	return nil
}

// scalar is v as a value of the OpenAPI type typ.
func scalar(typ any, v string) any {
	switch typ {
	case "boolean":
		if b, err := strconv.ParseBool(v); err == nil {
			return b
		}
	case "integer":
		if i, err := strconv.ParseInt(v, 10, 64); err == nil {
			return i
		}
	case "number":
		if x, err := strconv.ParseFloat(v, 64); err == nil {
			return x
		}
	}
	return v
}

// typeSchema is the schema of a type name of the compact form.
func typeSchema(t string) (map[string]any, error) {
	switch t {
	case "string", "integer", "number", "boolean", "object":
		return map[string]any{"type": t}, nil
	case "open":
		return map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}, nil
	case "any":
		return map[string]any{"x-kubernetes-preserve-unknown-fields": true}, nil
	case "int-or-string":
		return map[string]any{"x-kubernetes-int-or-string": true,
			"anyOf": []any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}}}, nil
	}
	if elem, ok := strings.CutPrefix(t, "[]"); ok {
		items, err := typeSchema(elem)
		if err != nil {
			return nil, err
		}
		return map[string]any{"type": "array", "items": items}, nil
	}
	if elem, ok := strings.CutPrefix(t, "map["); ok && strings.HasSuffix(elem, "]") {
		vals, err := typeSchema(strings.TrimSuffix(elem, "]"))
		if err != nil {
			return nil, err
		}
		return map[string]any{"type": "object", "additionalProperties": vals}, nil
	}
	return nil, fmt.Errorf("unknown type %q", t)
}
