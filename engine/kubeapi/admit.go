package kubeapi

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/rackboot/rackboot/engine"
)

// write is a checked write: the object to store and the revision it must
// replace (0: any).
type write struct {
	obj        engine.Object
	ifRevision uint64
}

// admit checks obj, written by a client to req (cur: the stored object
// and its view, nil on create), and builds the object to store. It refuses
// what the API server refuses, with its wording; nothing is written.
func (h *Handler) admit(req *request, obj map[string]any, cur *engine.Object, curView map[string]any) (write, error) {
	res := req.res
	if err := checkTypeMeta(res, obj); err != nil {
		return write{}, err
	}
	md, ok := obj["metadata"].(map[string]any)
	if !ok {
		return write{}, errBadRequest("Object 'metadata' is missing or not an object")
	}
	name, ns, err := h.identity(req, md, cur == nil)
	if err != nil {
		return write{}, err
	}
	if ns != "" && cur == nil {
		if err := h.checkNamespace(res, name, ns); err != nil {
			return write{}, err
		}
	}
	rv, ok := revision(fmt.Sprint(md["resourceVersion"]))
	if md["resourceVersion"] == nil {
		rv, ok = 0, true
	}
	if !ok {
		return write{}, errInvalid(res, name, cause{"metadata.resourceVersion", fmt.Sprintf("Invalid value: %q: must be a number", md["resourceVersion"]), metav1.CauseTypeFieldValueInvalid})
	}
	if cur == nil && rv != 0 {
		return write{}, errBadRequest("resourceVersion should not be set on objects to be created")
	}
	for _, f := range serverFields {
		delete(md, f)
	}
	labels, aerr := checkMeta(res, name, md)
	if aerr != nil {
		return write{}, aerr
	}
	if cur != nil && cur.Deleting() {
		if aerr := noNewFinalizers(res, name, md, cur.Finalizers()); aerr != nil {
			return write{}, aerr
		}
	}
	keepStatus(req, obj, curView)
	if res.Group == "" && res.Kind == "Secret" {
		if aerr := h.sealSecret(res, ns, name, obj); aerr != nil {
			return write{}, aerr
		}
	}
	delete(obj, "apiVersion")
	delete(obj, "kind")
	body, err := json.Marshal(obj)
	if err != nil {
		return write{}, errBadRequest("cannot encode the object: %v", err)
	}
	if len(body) > engine.MaxObjectBytes {
		return write{}, newStatus(http.StatusRequestEntityTooLarge, metav1.StatusReasonRequestEntityTooLarge,
			fmt.Sprintf("Request entity too large: limit is %d", engine.MaxObjectBytes), nil)
	}
	o := engine.Object{
		ObjectRef: engine.ObjectRef{Group: res.Group, Kind: res.Kind, Namespace: ns, Name: name},
		Labels:    labels, Body: body, Generation: 1,
	}
	if cur == nil {
		o.UID = newUID()
	} else {
		o.UID, o.Generation = cur.UID, cur.Generation
		if res.Group != "" && specChanged(obj, curView) {
			o.Generation++
		}
	}
	if res.Group == "" {
		o.Generation = 0
	}
	if h.opts.Admit != nil {
		if err := h.opts.Admit(cur, o); err != nil {
			return write{}, newStatus(http.StatusForbidden, metav1.StatusReasonForbidden,
				fmt.Sprintf("admission webhook %q denied the request: %v", webhookName(res), err), details(res, name))
		}
	}
	return write{obj: o, ifRevision: rv}, nil
}

func checkTypeMeta(res *Resource, obj map[string]any) *apiError {
	if av, _ := obj["apiVersion"].(string); av != "" && av != res.GroupVersion() {
		return errBadRequest("the API version in the data (%s) does not match the expected API version (%s)", av, res.GroupVersion())
	}
	if k, _ := obj["kind"].(string); k != "" && k != res.Kind {
		return errBadRequest("the kind in the data (%s) does not match the expected kind (%s)", k, res.Kind)
	}
	return nil
}

// identity settles the object's name and namespace from the URL and the
// body (generateName on create), as the API server does.
func (h *Handler) identity(req *request, md map[string]any, create bool) (name, ns string, err error) {
	res := req.res
	name, _ = md["name"].(string)
	if gen, _ := md["generateName"].(string); create && name == "" && gen != "" {
		name = gen + randomSuffix()
		md["name"] = name
	}
	if req.name != "" && name != req.name {
		if name == "" {
			name = req.name
			md["name"] = name
		} else {
			return "", "", errBadRequest("the name of the object (%s) does not match the name on the URL (%s)", name, req.name)
		}
	}
	if name == "" {
		return "", "", errInvalid(res, "", cause{"metadata.name", "Required value: name or generateName is required", metav1.CauseTypeFieldValueRequired})
	}
	if res.Namespaced {
		ns, _ = md["namespace"].(string)
		if ns != "" && ns != req.ns {
			return "", "", errBadRequest("the namespace of the provided object does not match the namespace sent on the request")
		}
		ns = req.ns
		md["namespace"] = ns
	} else {
		delete(md, "namespace")
	}
	if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
		return "", "", errInvalid(res, name, cause{"metadata.name",
			fmt.Sprintf("Invalid value: %q: %s", name, strings.Join(msgs, "; ")), metav1.CauseTypeFieldValueInvalid})
	}
	return name, ns, nil
}

// webhookName is upstream's validating webhook of res's kind, named in a
// refusal as the API server names the webhook that denied a request.
func webhookName(res *Resource) string {
	return strings.ToLower(res.Kind) + "validators.admission.agentinstall.openshift.io"
}

// noNewFinalizers refuses, as the API server does, a finalizer added to
// an object being deleted.
func noNewFinalizers(res *Resource, name string, md map[string]any, old []string) *apiError {
	fs, _ := md["finalizers"].([]any)
	var added []string
	for _, f := range fs {
		if s, _ := f.(string); !slices.Contains(old, s) {
			added = append(added, fmt.Sprint(f))
		}
	}
	if len(added) == 0 {
		return nil
	}
	return errInvalid(res, name, cause{"metadata.finalizers", fmt.Sprintf(
		"Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers %q", added),
		metav1.CauseTypeForbidden})
}

// checkMeta validates labels, annotations and finalizers (names, and not
// both orphan and foregroundDeletion) and returns the labels.
func checkMeta(res *Resource, name string, md map[string]any) (map[string]string, *apiError) {
	labels, err := stringMap(md["labels"])
	if err != nil {
		return nil, errInvalid(res, name, cause{"metadata.labels", err.Error(), metav1.CauseTypeFieldValueInvalid})
	}
	if _, err := stringMap(md["annotations"]); err != nil {
		return nil, errInvalid(res, name, cause{"metadata.annotations", err.Error(), metav1.CauseTypeFieldValueInvalid})
	}
	var fs []string
	if list, _ := md["finalizers"].([]any); len(list) > 0 {
		for _, f := range list {
			fs = append(fs, fmt.Sprint(f))
		}
	}
	errs := metavalidation.ValidateLabels(labels, field.NewPath("metadata", "labels"))
	errs = append(errs, apivalidation.ValidateFinalizers(fs, field.NewPath("metadata", "finalizers"))...)
	if len(errs) > 0 {
		var cs []cause
		for _, e := range errs {
			cs = append(cs, cause{e.Field, strings.TrimPrefix(e.Error(), e.Field+": "), metav1.CauseType(e.Type)})
		}
		return nil, errInvalid(res, name, cs...)
	}
	return labels, nil
}

func stringMap(v any) (map[string]string, error) {
	if v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("must be a map of strings")
	}
	out := make(map[string]string, len(m))
	for k, x := range m {
		s, ok := x.(string)
		if !ok {
			return nil, fmt.Errorf("the value of %q must be a string", k)
		}
		out[k] = s
	}
	return out, nil
}

// keepStatus applies the status subresource's rule: a write to the object
// keeps the stored status (none on create); a write to /status changes
// the status only.
func keepStatus(req *request, obj, curView map[string]any) {
	if !req.res.Status {
		return
	}
	if req.sub == "status" {
		st := obj["status"]
		for k := range obj {
			if k != "metadata" {
				delete(obj, k)
			}
		}
		for k, v := range curView {
			if k != "metadata" && k != "status" {
				obj[k] = v
			}
		}
		obj["status"] = st
		if cm, ok := curView["metadata"].(map[string]any); ok {
			md := metadata(obj)
			md["labels"], md["annotations"] = cm["labels"], cm["annotations"]
			cleanNil(md)
		}
		return
	}
	if st, ok := curView["status"]; ok {
		obj["status"] = st
	} else {
		delete(obj, "status")
	}
}

func cleanNil(m map[string]any) {
	for k, v := range m {
		if v == nil {
			delete(m, k)
		}
	}
}

// specChanged reports whether anything but metadata and status differs:
// what moves metadata.generation.
func specChanged(obj, cur map[string]any) bool {
	strip := func(m map[string]any) map[string]any {
		out := map[string]any{}
		for k, v := range m {
			if k != "metadata" && k != "status" && k != "apiVersion" && k != "kind" {
				out[k] = v
			}
		}
		return out
	}
	return !reflect.DeepEqual(strip(obj), strip(cur))
}

func newUID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// randomSuffix is generateName's: five characters from the API server's
// alphabet.
func randomSuffix() string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	b := make([]byte, 5)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}
