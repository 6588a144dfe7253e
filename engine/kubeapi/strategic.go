package kubeapi

import (
	"net/http"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/mergepatch"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

// Strategic merge patches (kubectl patch's default type, and what plain
// `kubectl apply` sends for the built-in kinds) are applied by
// k8s.io/apimachinery's strategicpatch with k8s.io/api's Go types as the
// patch metadata, as kube-apiserver applies them: metadata.finalizers
// merged, ownerReferences merged by uid, a Namespace's status.conditions
// merged by type, and the directives ($patch: replace|delete|merge,
// $setElementOrder/..., $retainKeys, $deleteFromPrimitiveList/...)
// honoured. The custom resource kinds answer 415 (patch.go), as
// kube-apiserver answers for a CRD's.

// strategicStruct is the Go type whose patch tags drive a strategic merge
// patch of kind (nil: the kind takes none).
func strategicStruct(res *Resource) any {
	if res.Group != "" {
		return nil
	}
	switch res.Kind {
	case "Secret":
		return &corev1.Secret{}
	case "ConfigMap":
		return &corev1.ConfigMap{}
	case "Namespace":
		return &corev1.Namespace{}
	case "Event":
		return &corev1.Event{}
	}
	return nil
}

// strategicMerge applies the strategic merge patch p to the JSON document
// doc of res's kind.
func strategicMerge(res *Resource, doc, p []byte) ([]byte, error) {
	out, err := strategicpatch.StrategicMergePatch(doc, p, strategicStruct(res))
	if err != nil {
		return nil, strategicError(err)
	}
	return out, nil
}

// strategicError answers a strategic merge patch's error as
// kube-apiserver's interpretStrategicMergePatchError does: a malformed
// patch is a Bad Request, a patch that does not fit the object 422, any
// other error the library's own.
func strategicError(err error) error {
	switch err {
	case mergepatch.ErrBadJSONDoc, mergepatch.ErrBadPatchFormatForPrimitiveList, mergepatch.ErrBadPatchFormatForRetainKeys,
		mergepatch.ErrBadPatchFormatForSetElementOrderList, mergepatch.ErrUnsupportedStrategicMergePatchFormat:
		return errBadRequest("%s", err.Error())
	case mergepatch.ErrNoListOfLists, mergepatch.ErrPatchContentNotMatchRetainKeys:
		se := apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "", err.Error(), 0, false)
		return &apiError{status: withTypeMeta(se.ErrStatus)}
	}
	return newStatus(http.StatusInternalServerError, metav1.StatusReasonUnknown, err.Error(), nil)
}

// withTypeMeta is st as the API answers it.
func withTypeMeta(st metav1.Status) metav1.Status {
	st.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
	return st
}
