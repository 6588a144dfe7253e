package kubeapi

import (
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/managedfields"
	smd "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// The field manager's types, built from a kind's schema as kube-apiserver
// builds them from a CRD's (k8s.io/kube-openapi's schemaconv): an object
// is a struct whose fields are merged one by one (its whole value at once
// with x-kubernetes-map-type: atomic), a list is atomic unless its
// x-kubernetes-list-type is map (items merged by the values of its
// x-kubernetes-list-map-keys, e.g. a Namespace's status.conditions by
// type) or set. Unlike kube-apiserver's, the types take a value of any
// JSON type where the schema expects another (and fields it does not
// declare): checkFields answers for those, in kube-apiserver's words,
// but for an applied configuration's undeclared fields, which the strict
// form of the types refuses first as kube-apiserver's does (checkDeclared).

const (
	// deducedType is structured-merge-diff's type for values without a
	// schema: maps merged key by key, lists atomic.
	deducedType = "__untyped_deduced_"
	atomicType  = "__untyped_atomic_"
)

// schemaTypeConverter converts between a kind's objects and values typed
// by its schema. strict is the same type but for the fields an object
// declares: one it does not (no additionalProperties, no
// x-kubernetes-preserve-unknown-fields) is "field not declared in
// schema", as kube-apiserver's type converter of a CRD answers a
// server-side apply that sets it (checkDeclared).
type schemaTypeConverter struct {
	t, strict typed.ParseableType
}

// newTypeConverter builds the type converter of a kind's schema (the
// deduced one when it has none).
func newTypeConverter(kind string, s map[string]any) managedfields.TypeConverter {
	if s == nil {
		return managedfields.NewDeducedTypeConverter()
	}
	return schemaTypeConverter{t: parseableType(kind, s, false), strict: parseableType(kind, s, true)}
}

func parseableType(kind string, s map[string]any, strict bool) typed.ParseableType {
	untyped := smd.Untyped
	types := []smd.TypeDef{
		{Name: atomicType, Atom: smd.Atom{Scalar: &untyped,
			List: &smd.List{ElementType: named(atomicType), ElementRelationship: smd.Atomic},
			Map:  &smd.Map{ElementType: named(atomicType), ElementRelationship: smd.Atomic}}},
		{Name: deducedType, Atom: smd.Atom{Scalar: &untyped,
			List: &smd.List{ElementType: named(atomicType), ElementRelationship: smd.Atomic},
			Map:  &smd.Map{ElementType: named(deducedType), ElementRelationship: smd.Separable}}},
		{Name: kind, Atom: schemaAtom(s, strict)},
	}
	p := &typed.Parser{Schema: smd.Schema{Types: types}}
	return p.Type(kind)
}

func named(name string) smd.TypeRef {
	return smd.TypeRef{NamedType: &name}
}

// schemaRef is the type of a value of schema s: its own atom for an
// object or a list, the deduced type for a scalar or an untyped value.
func schemaRef(s map[string]any, strict bool) smd.TypeRef {
	switch s["type"] {
	case "object", "array":
		return smd.TypeRef{Inlined: schemaAtom(s, strict)}
	}
	return named(deducedType)
}

// schemaAtom is the atom of an object or a list; either also takes a
// scalar or the other (see the package comment above). strict: an object
// that declares properties takes no other field, unless its schema has
// additionalProperties or x-kubernetes-preserve-unknown-fields (an object
// declaring none, such as metadata here, takes any).
func schemaAtom(s map[string]any, strict bool) smd.Atom {
	untyped := smd.Untyped
	lenient := &smd.List{ElementType: named(atomicType), ElementRelationship: smd.Atomic}
	if s["type"] == "array" {
		items, _ := s["items"].(map[string]any)
		l := &smd.List{ElementType: schemaRef(items, strict), ElementRelationship: smd.Atomic}
		switch s["x-kubernetes-list-type"] {
		case "map":
			l.ElementRelationship = smd.Associative
			keys, _ := s["x-kubernetes-list-map-keys"].([]any)
			for _, k := range keys {
				l.Keys = append(l.Keys, fmt.Sprint(k))
			}
		case "set":
			l.ElementRelationship = smd.Associative
		}
		return smd.Atom{Scalar: &untyped, List: l,
			Map: &smd.Map{ElementType: named(deducedType), ElementRelationship: smd.Separable}}
	}
	m := &smd.Map{ElementType: named(deducedType), ElementRelationship: smd.Separable}
	if extra, ok := s["additionalProperties"].(map[string]any); ok {
		m.ElementType = schemaRef(extra, strict)
	}
	props, _ := s["properties"].(map[string]any)
	for _, name := range slices.Sorted(maps.Keys(props)) {
		m.Fields = append(m.Fields, smd.StructField{Name: name, Type: schemaRef(props[name].(map[string]any), strict)})
	}
	if open, _ := s["x-kubernetes-preserve-unknown-fields"].(bool); strict && !open && len(props) > 0 && s["additionalProperties"] == nil {
		m.ElementType = smd.TypeRef{}
	}
	if s["x-kubernetes-map-type"] == "atomic" {
		m.ElementRelationship = smd.Atomic
	}
	return smd.Atom{Scalar: &untyped, List: lenient, Map: m}
}

func (c schemaTypeConverter) ObjectToTyped(obj runtime.Object, opts ...typed.ValidationOptions) (*typed.TypedValue, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("kubeapi: %T is not an unstructured object", obj)
	}
	return c.t.FromUnstructured(u.UnstructuredContent(), opts...)
}

func (schemaTypeConverter) TypedToObject(v *typed.TypedValue) (runtime.Object, error) {
	m, ok := v.AsValue().Unstructured().(map[string]any)
	if !ok {
		return nil, fmt.Errorf("kubeapi: a typed value of %T is not an object", v.AsValue().Unstructured())
	}
	return &unstructured.Unstructured{Object: m}, nil
}
