package kubeapi

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Field validation directives (the fieldValidation query parameter).
const (
	validateStrict = "Strict"
	validateWarn   = "Warn"
	validateIgnore = "Ignore"
)

// checkFields checks a request's object against its kind's schema as
// kube-apiserver checks a custom resource against its CRD's structural
// schema, and completes it as it does: unknown fields are refused
// (Strict), or pruned from obj with a Warning header each (Warn, the
// default) or silently (Ignore); a null where the schema declares a
// field is dropped; a field left out whose schema has a default gets it
// (where its parent object is there); then a value of the wrong type,
// not one of an enum's, or a required field left out is 422 Invalid
// whatever the directive. dups are the fields the request's JSON set
// twice (duplicateFields), refused or warned of as unknown fields are.
func checkFields(w http.ResponseWriter, r *http.Request, res *Resource, obj map[string]any, dups []string) error {
	directive := r.URL.Query().Get("fieldValidation")
	switch directive {
	case "":
		directive = validateWarn
	case validateStrict, validateWarn, validateIgnore:
	default:
		return errBadRequest("fieldValidation must be one of %q, %q or %q, not %q", validateIgnore, validateWarn, validateStrict, directive)
	}
	if err := decodeV1(res, obj); err != nil {
		return err
	}
	var c fieldChecker
	if res.Schema != nil {
		keptStatus(r, res, obj, func() { c.object(res.Schema, obj, "") })
	}
	slices.Sort(c.unknown)
	// The walk follows map order: sort the causes by field, so a
	// message is the same every time.
	slices.SortStableFunc(c.invalid, func(a, b cause) int { return strings.Compare(a.field, b.field) })
	switch {
	case len(c.unknown)+len(dups) > 0 && directive == validateStrict:
		// Decoding fails before the object is validated.
		parts := slices.Clone(dups)
		for _, f := range c.unknown {
			parts = append(parts, fmt.Sprintf("unknown field %q", f))
		}
		return errBadRequest("%s in version %q cannot be handled as a %s: strict decoding error: %s",
			res.Kind, res.Version, res.Kind, strings.Join(parts, ", "))
	case len(c.invalid) > 0:
		md, _ := obj["metadata"].(map[string]any)
		name, _ := md["name"].(string)
		return errInvalid(res, name, c.invalid...)
	case directive == validateWarn:
		for _, d := range dups {
			w.Header().Add("Warning", "299 - "+strconv.Quote(d))
		}
		for _, f := range c.unknown {
			w.Header().Add("Warning", fmt.Sprintf(`299 - "unknown field \"%s\""`, f))
		}
	}
	return nil
}

// keptStatus runs check on obj without its status when the write keeps
// the stored status (a kind with the status subresource, written other
// than through /status), then puts the status back: what the server
// writes, not the client, is not the client's to answer for
// (kube-apiserver's validation ratchets unchanged fields likewise).
func keptStatus(r *http.Request, res *Resource, obj map[string]any, check func()) {
	st, ok := obj["status"]
	if !ok || !res.Status || strings.HasSuffix(strings.TrimSuffix(r.URL.Path, "/"), "/status") {
		check()
		return
	}
	delete(obj, "status")
	check()
	obj["status"] = st
}

// fieldChecker walks an object along a structural schema, pruning the
// fields it does not declare and defaulting the ones it leaves out.
type fieldChecker struct {
	unknown []string // paths of fields the schema does not declare (pruned)
	invalid []cause  // values of the wrong type or not in the enum
}

func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

// value checks v at path against schema s.
func (c *fieldChecker) value(s map[string]any, v any, path string) {
	if v == nil || s == nil {
		return
	}
	want, _ := s["type"].(string)
	if want != "" && !hasType(v, want) {
		c.invalid = append(c.invalid, cause{field: path, typ: metav1.CauseType("FieldValueTypeInvalid"),
			msg: fmt.Sprintf("Invalid value: %q: %s in body must be of type %s: %q", jsonType(v), path, want, jsonType(v))})
		return
	}
	if enum, ok := s["enum"].([]any); ok && !inEnum(enum, v) {
		quoted := make([]string, len(enum))
		for i, e := range enum {
			quoted[i] = strconv.Quote(fmt.Sprint(e))
		}
		c.invalid = append(c.invalid, cause{field: path, typ: metav1.CauseTypeFieldValueNotSupported,
			msg: fmt.Sprintf("Unsupported value: %s: supported values: %s", strconv.Quote(fmt.Sprint(v)), strings.Join(quoted, ", "))})
		return
	}
	switch v := v.(type) {
	case string:
		c.invalid = append(c.invalid, checkString(s, v, path)...)
	case float64, json.Number:
		c.invalid = append(c.invalid, checkNumber(s, v, path)...)
	case map[string]any:
		c.object(s, v, path)
	case []any:
		c.invalid = append(c.invalid, checkItems(s, len(v), path)...)
		items, _ := s["items"].(map[string]any)
		for i, e := range v {
			c.value(items, e, path+"["+strconv.Itoa(i)+"]")
		}
	}
}

// object checks the fields of o at path against schema s.
func (c *fieldChecker) object(s map[string]any, o map[string]any, path string) {
	// x-kubernetes-preserve-unknown-fields: any key, the declared ones
	// checked.
	open, _ := s["x-kubernetes-preserve-unknown-fields"].(bool)
	if path == "metadata" {
		for k := range o {
			if !slices.Contains(objectMetaFields, k) {
				c.unknown = append(c.unknown, join(path, k))
				delete(o, k)
			}
		}
		return
	}
	props, _ := s["properties"].(map[string]any)
	extra, _ := s["additionalProperties"].(map[string]any)
	for k, v := range o {
		switch p, ok := props[k].(map[string]any); {
		case ok && v == nil, !ok && extra != nil && v == nil:
			// A null where the schema declares the field (none is
			// nullable) is dropped, then defaulted.
			delete(o, k)
		case ok:
			c.value(p, v, join(path, k))
		case extra != nil:
			c.value(extra, v, join(path, k))
		case open || props == nil && s["additionalProperties"] == nil:
			// An open object, or one whose schema declares nothing
			// (metadata aside), holds anything.
		default:
			c.unknown = append(c.unknown, join(path, k))
			delete(o, k)
		}
	}
	setDefaults(props, o)
	c.required(s, o, path)
}

// setDefaults gives each field of props with a default that o leaves out
// its default (a scalar: schemaparse.go's default= attribute).
func setDefaults(props map[string]any, o map[string]any) {
	for k, p := range props {
		d, ok := p.(map[string]any)["default"]
		if _, set := o[k]; ok && !set {
			o[k] = d
		}
	}
}

// required adds a Required value cause for each field s requires that o
// lacks (object has dropped its nulls, as kube-apiserver drops a null of
// a field that is not nullable before it validates), at the field's
// path, as kube-apiserver's CRD validation words it.
func (c *fieldChecker) required(s map[string]any, o map[string]any, path string) {
	req, _ := s["required"].([]any)
	for _, r := range req {
		k, _ := r.(string)
		if v, ok := o[k]; ok && v != nil {
			continue
		}
		c.invalid = append(c.invalid, cause{field: join(path, k), typ: metav1.CauseTypeFieldValueRequired, msg: "Required value"})
	}
}

// inEnum reports whether the scalar v is one of enum's values (objects
// and lists are not compared).
func inEnum(enum []any, v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return slices.ContainsFunc(enum, func(e any) bool { return fmt.Sprint(e) == fmt.Sprint(v) })
}

// hasType reports whether a decoded JSON value is of an OpenAPI type.
func hasType(v any, want string) bool {
	got := jsonType(v)
	return got == want || (want == "number" && got == "integer")
}

// jsonType is the OpenAPI type of a decoded JSON value (numbers decode as
// float64 or json.Number; a whole number, 5.0 too, is an integer, as
// kube-apiserver's validation takes it).
func jsonType(v any) string {
	switch v := v.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case float64:
		if v == math.Trunc(v) {
			return "integer"
		}
		return "number"
	case json.Number:
		if f, err := v.Float64(); err == nil && f == math.Trunc(f) {
			return "integer"
		}
		return "number"
	}
	return fmt.Sprintf("%T", v)
}
