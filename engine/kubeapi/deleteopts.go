package kubeapi

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// deleteOptions reads a delete's DeleteOptions from its body, or from
// its query (propagationPolicy, orphanDependents, dryRun) when it has no
// body, as kube-apiserver does, and refuses those it refuses
// (ValidateDeleteOptions: 422 Invalid on DeleteOptions.meta.k8s.io).
func deleteOptions(r *http.Request) (metav1.DeleteOptions, error) {
	var opts metav1.DeleteOptions
	if b, _ := io.ReadAll(r.Body); len(b) > 0 {
		if err := json.Unmarshal(b, &opts); err != nil {
			return opts, errBadRequest("the delete options are not valid: %v", err)
		}
	} else {
		q := r.URL.Query()
		if p := q.Get("propagationPolicy"); q.Has("propagationPolicy") {
			pp := metav1.DeletionPropagation(p)
			opts.PropagationPolicy = &pp
		}
		if q.Has("orphanDependents") {
			o, err := strconv.ParseBool(q.Get("orphanDependents"))
			if err != nil {
				return opts, errBadRequest("the delete options are not valid: orphanDependents: %v", err)
			}
			opts.OrphanDependents = &o //nolint:staticcheck // the deprecated option is still served
		}
		opts.DryRun = q["dryRun"]
	}
	if errs := metav1validation.ValidateDeleteOptions(&opts); len(errs) > 0 {
		se := apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "DeleteOptions"}, "", errs)
		return opts, &apiError{status: withTypeMeta(se.ErrStatus)}
	}
	return opts, nil
}

// propagation is the engine's propagation policy of opts: the deprecated
// orphanDependents as kube-apiserver reads it (true: Orphan, false:
// neither finalizer), else propagationPolicy ("": the object's own
// orphan or foregroundDeletion finalizer decides).
func propagation(opts metav1.DeleteOptions) string {
	if o := opts.OrphanDependents; o != nil { //nolint:staticcheck // the deprecated option is still served
		if *o {
			return string(metav1.DeletePropagationOrphan)
		}
		return string(metav1.DeletePropagationBackground)
	}
	if opts.PropagationPolicy != nil {
		return string(*opts.PropagationPolicy)
	}
	return ""
}
