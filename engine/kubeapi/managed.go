package kubeapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// Field managers (metadata.managedFields) are kept as kube-apiserver keeps
// them for custom resources: apimachinery's FieldManager over
// sigs.k8s.io/structured-merge-diff, with the types of the kind's schema
// (typed.go: objects merged field by field, lists atomic unless the
// schema makes them maps by key or sets). A create, update or patch records the fields its manager set; a
// server-side apply merges the applied configuration, refuses to take a
// field another manager owns unless forced (409 with the conflicts), and
// removes the fields its manager stopped applying.

// managerName is the request's field manager: the fieldManager parameter,
// else the User-Agent's product (as kube-apiserver's managerOrUserAgent).
func managerName(r *http.Request) (string, error) {
	m := r.URL.Query().Get("fieldManager")
	if m == "" {
		return prefixFromUserAgent(r.UserAgent()), nil
	}
	if errs := validation.ValidateFieldManager(m, nil); len(errs) > 0 {
		return "", errBadRequest("Invalid value: %q: %s", m, errs.ToAggregate().Error())
	}
	return m, nil
}

// prefixFromUserAgent is what precedes the first "/" of a User-Agent,
// printable characters only, at most FieldManagerMaxLength bytes.
func prefixFromUserAgent(u string) string {
	m, _, _ := strings.Cut(u, "/")
	var b strings.Builder
	for _, r := range m {
		if !unicode.IsPrint(r) {
			continue
		}
		if b.Len()+utf8.RuneLen(r) > validation.FieldManagerMaxLength {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}

// fieldManager builds the field manager of res (sub: "" or "status"). The
// status subresource's fields are reset on writes to the object and
// everything but them on writes to /status, as the CRD strategies do.
func fieldManager(res *Resource, sub string) (*managedfields.FieldManager, error) {
	gvk := schema.GroupVersionKind{Group: res.Group, Version: res.Version, Kind: res.Kind}
	gv := gvk.GroupVersion()
	var reset map[fieldpath.APIVersion]*fieldpath.Set
	if res.Status {
		set := fieldpath.NewSet(fieldpath.MakePathOrDie("status"))
		if sub == "status" {
			set = fieldpath.NewSet(fieldpath.MakePathOrDie("spec"), fieldpath.MakePathOrDie("metadata"))
		}
		reset = map[fieldpath.APIVersion]*fieldpath.Set{fieldpath.APIVersion(gv.String()): set}
	}
	c := unstructuredConverter{}
	types := res.types
	if types == nil {
		types = managedfields.NewDeducedTypeConverter()
	}
	fm, err := managedfields.NewDefaultCRDFieldManager(types, c, c, c,
		gvk, gv, sub, fieldpath.NewExcludeFilterSetMap(reset))
	if err != nil {
		return nil, fmt.Errorf("kubeapi: field manager of %s: %w", gvk, err)
	}
	return fm, nil
}

// unstructuredConverter is the object converter, defaulter and creater of
// one version of unstructured objects (every kind here has one version).
type unstructuredConverter struct{}

func (unstructuredConverter) Convert(in, out, _ any) error {
	u, ok := in.(*unstructured.Unstructured)
	o, ok2 := out.(*unstructured.Unstructured)
	if !ok || !ok2 {
		return fmt.Errorf("kubeapi: cannot convert %T to %T", in, out)
	}
	o.Object = runtime.DeepCopyJSON(u.Object)
	return nil
}

func (unstructuredConverter) ConvertToVersion(in runtime.Object, gv runtime.GroupVersioner) (runtime.Object, error) {
	return in, nil
}

func (unstructuredConverter) ConvertFieldLabel(_ schema.GroupVersionKind, label, value string) (string, string, error) {
	return label, value, nil
}

func (unstructuredConverter) Default(runtime.Object) {}

func (unstructuredConverter) New(gvk schema.GroupVersionKind) (runtime.Object, error) {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetGroupVersionKind(gvk)
	return u, nil
}

// toUnstructured converts a view (json.Number numbers) into an
// unstructured object (int64 and float64 numbers) for the field manager;
// nil is an empty object of res.
func toUnstructured(res *Resource, view map[string]any) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	if view == nil {
		u.SetAPIVersion(res.GroupVersion())
		u.SetKind(res.Kind)
		return u, nil
	}
	if err := checkTypeMeta(res, view); err != nil {
		return nil, err
	}
	typed := maps.Clone(view)
	typed["apiVersion"], typed["kind"] = res.GroupVersion(), res.Kind
	b, err := json.Marshal(typed)
	if err != nil {
		return nil, err
	}
	if err := u.UnmarshalJSON(b); err != nil {
		return nil, errBadRequest("the object is not valid: %v", err)
	}
	return u, nil
}

// fromUnstructured converts back into a view.
func fromUnstructured(u runtime.Object) (map[string]any, error) {
	b, err := json.Marshal(u)
	if err != nil {
		return nil, err
	}
	return decodeObject(b)
}

// manageUpdate records, in obj's metadata.managedFields, the fields the
// request's manager set by writing obj over cur (nil: a create).
func manageUpdate(r *http.Request, req *request, cur, obj map[string]any) (map[string]any, error) {
	manager, err := managerName(r)
	if err != nil {
		return nil, err
	}
	fm, err := fieldManager(req.res, req.sub)
	if err != nil {
		return nil, err
	}
	live, err := toUnstructured(req.res, cur)
	if err != nil {
		return nil, err
	}
	next, err := toUnstructured(req.res, obj)
	if err != nil {
		return nil, err
	}
	return fromUnstructured(fm.UpdateNoErrors(live, next, manager))
}

// manageApply merges the applied configuration patch into cur (nil: the
// object is created) for the manager the request names, as server-side
// apply does.
func manageApply(r *http.Request, req *request, cur map[string]any, patch []byte) (map[string]any, error) {
	q := r.URL.Query()
	manager := q.Get("fieldManager")
	if manager == "" {
		return nil, newStatus(http.StatusBadRequest, metav1.StatusReasonBadRequest,
			"PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch", nil)
	}
	if _, err := managerName(r); err != nil {
		return nil, err
	}
	force := q.Get("force") == "true"
	applied, err := decodeObject(patch)
	if err != nil {
		return nil, errBadRequest("error decoding YAML: %v", err)
	}
	if md, ok := applied["metadata"].(map[string]any); ok {
		if _, set := md["managedFields"]; set {
			return nil, errBadRequest("metadata.managedFields must be nil")
		}
	}
	fm, err := fieldManager(req.res, req.sub)
	if err != nil {
		return nil, err
	}
	live, err := toUnstructured(req.res, cur)
	if err != nil {
		return nil, err
	}
	a, err := toUnstructured(req.res, applied)
	if err != nil {
		return nil, err
	}
	if err := checkDeclared(req.res, a); err != nil {
		return nil, err
	}
	out, err := fm.Apply(live, a, manager, force)
	if err != nil {
		return nil, applyError(req, err)
	}
	return fromUnstructured(out)
}

// checkDeclared refuses an applied configuration that sets a field its
// kind's schema does not declare, with the field manager's words, before
// anything is merged (kube-apiserver's typed patch object; the types the
// field managers here use take such fields, which writes other than an
// apply prune: typed.go).
func checkDeclared(res *Resource, applied *unstructured.Unstructured) error {
	c, ok := res.types.(schemaTypeConverter)
	if !ok {
		return nil
	}
	if _, err := c.strict.FromUnstructured(applied.UnstructuredContent()); err != nil {
		return typedPatchError(applied, err)
	}
	return nil
}

// typedPatchError is the field manager's error for an applied
// configuration its types refuse (a field not declared, duplicate entries
// in a list-type map), which kube-apiserver answers 500 with no reason
// (kubectl: "Error from server: failed to create typed patch object
// (ns/name; group/version, Kind=Kind): .spec.foo: field not declared in
// schema").
func typedPatchError(applied *unstructured.Unstructured, err error) error {
	gvk := applied.GroupVersionKind()
	return newStatus(http.StatusInternalServerError, metav1.StatusReasonUnknown,
		fmt.Sprintf("failed to create typed patch object (%s/%s; %v): %v", applied.GetNamespace(), applied.GetName(), gvk, err), nil)
}

// applyError turns the field manager's error into the API's answer: a
// conflict is kube-apiserver's 409 with the managers and fields; an error
// that is not a Status 500 with no reason, as kube-apiserver answers it.
func applyError(req *request, err error) error {
	var se *apierrors.StatusError
	if errors.As(err, &se) {
		st := se.ErrStatus
		st.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
		if st.Details != nil && st.Details.Name == "" {
			st.Details.Name, st.Details.Group, st.Details.Kind = req.name, req.res.Group, req.res.Plural
		}
		return &apiError{status: st}
	}
	return newStatus(http.StatusInternalServerError, metav1.StatusReasonUnknown, err.Error(), nil)
}
