package kubeapi

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/rackboot/rackboot/engine"
)

// patchRetries is how often a patch that did not name a resourceVersion
// is applied again to the newer object after a conflict (as the API
// server does).
const patchRetries = 5

// Patch content types.
const (
	mergePatch     = "application/merge-patch+json"
	jsonPatch      = "application/json-patch+json"
	strategicPatch = "application/strategic-merge-patch+json"
	applyPatch     = "application/apply-patch+yaml"
)

func (h *Handler) patch(w http.ResponseWriter, r *http.Request, req *request) error {
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case mergePatch, jsonPatch, applyPatch:
	case strategicPatch:
		if strategicStruct(req.res) == nil {
			return newStatus(http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType,
				"the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml", nil)
		}
	default:
		return newStatus(http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType,
			"the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml", nil)
	}
	p, err := io.ReadAll(r.Body)
	if err != nil {
		return errBadRequest("reading the request: %v", err)
	}
	var yamlErr error
	if ct == applyPatch {
		yamlErr = yaml.UnmarshalStrict(p, &map[string]any{})
		if p, err = yaml.YAMLToJSON(p); err != nil {
			return errBadRequest("error decoding YAML: %v", err)
		}
	}
	for try := 0; ; try++ {
		err := h.patchOnce(w, r, req, ct, p, yamlErr)
		var ae *apiError
		if try < patchRetries && errors.As(err, &ae) && ae.status.Reason == metav1.StatusReasonConflict && !namesRevision(p) {
			continue
		}
		return err
	}
}

// patchOnce applies p to the current object and stores it; yamlErr is the
// strict decoding's error of an applied configuration (strictYAML).
func (h *Handler) patchOnce(w http.ResponseWriter, r *http.Request, req *request, ct string, p []byte, yamlErr error) error {
	cur, curView, err := h.current(req)
	if err != nil {
		if ct != applyPatch {
			return err
		}
		obj, derr := manageApply(r, req, nil, p)
		if derr != nil {
			return derr
		}
		if derr = strictYAML(w, r, yamlErr); derr != nil {
			return derr
		}
		if cerr := checkFields(w, r, req.res, obj, nil); cerr != nil {
			return cerr
		}
		wr, aerr := h.admit(req, obj, nil, nil)
		if aerr != nil {
			return aerr
		}
		return h.store(w, r, req, wr, true, http.StatusCreated)
	}
	if ct == applyPatch {
		obj, err := manageApply(r, req, curView, p)
		if err != nil {
			return err
		}
		if err := strictYAML(w, r, yamlErr); err != nil {
			return err
		}
		if err := checkFields(w, r, req.res, obj, nil); err != nil {
			return err
		}
		return h.admitStore(w, r, req, obj, cur, curView)
	}
	doc, err := json.Marshal(curView)
	if err != nil {
		return err
	}
	var out []byte
	switch ct {
	case jsonPatch:
		ops, derr := jsonpatch.DecodePatch(p)
		if derr != nil {
			return errBadRequest("the JSON patch is not valid: %v", derr)
		}
		if out, err = ops.Apply(doc); err != nil {
			return newStatus(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, "the JSON patch could not be applied: "+err.Error(), details(req.res, req.name))
		}
	case strategicPatch:
		if out, err = strategicMerge(req.res, doc, p); err != nil {
			return err
		}
	default:
		if out, err = jsonpatch.MergePatch(doc, p); err != nil {
			return errBadRequest("the merge patch is not valid: %v", err)
		}
	}
	obj, err := decodeObject(out)
	if err != nil {
		return errBadRequest("the patched object is not a JSON object: %v", err)
	}
	var dups []string
	if ct == mergePatch || ct == strategicPatch {
		dups = duplicateFields(p)
	}
	if err := checkFields(w, r, req.res, obj, dups); err != nil {
		return err
	}
	if obj, err = manageUpdate(r, req, curView, obj); err != nil {
		return err
	}
	return h.admitStore(w, r, req, obj, cur, curView)
}

// admitStore admits obj over cur and stores it.
func (h *Handler) admitStore(w http.ResponseWriter, r *http.Request, req *request, obj map[string]any, cur engine.Object, curView map[string]any) error {
	wr, err := h.admit(req, obj, &cur, curView)
	if err != nil {
		return err
	}
	return h.store(w, r, req, wr, false, http.StatusOK)
}

// namesRevision reports whether a patch sets metadata.resourceVersion
// (then a conflict is the client's to resolve).
func namesRevision(p []byte) bool {
	var v struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	return json.Unmarshal(p, &v) == nil && v.Metadata.ResourceVersion != ""
}

// strictYAML answers the strict decoding's error of an applied
// configuration (a key set twice) as kube-apiserver's apply does once the
// field manager merged it: Bad Request under fieldValidation=Strict, a
// Warning per line under Warn (the default), nothing under Ignore.
func strictYAML(w http.ResponseWriter, r *http.Request, yamlErr error) error {
	if yamlErr == nil {
		return nil
	}
	switch r.URL.Query().Get("fieldValidation") {
	case validateStrict:
		return errBadRequest("error strict decoding YAML: %v", yamlErr)
	case validateWarn, "":
		for _, line := range yamlWarnings(yamlErr.Error()) {
			w.Header().Add("Warning", "299 - "+strconv.Quote(line))
		}
	}
	return nil
}

// yamlWarnings splits a YAML strict decoding error into its lines, as
// kube-apiserver's parseYAMLWarnings does.
func yamlWarnings(msg string) []string {
	rest, ok := strings.CutPrefix(msg, "yaml: unmarshal errors:\n")
	if !ok {
		if rest, ok = strings.CutPrefix(msg, "error converting YAML to JSON: yaml: unmarshal errors:\n"); !ok {
			return []string{msg}
		}
	}
	lines := strings.Split(rest, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return lines
}
