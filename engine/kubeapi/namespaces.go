package kubeapi

import (
	"fmt"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rackboot/rackboot/engine"
)

// Namespace deletion is the engine's (engine/cmd_namespace.go): a deleted
// Namespace is Terminating (status.phase, its deletionTimestamp) while its
// objects' finalizers run, and goes with its last object. Here: the
// phase, and kube-apiserver's NamespaceLifecycle refusal of a create in a
// Terminating namespace.

// namespaceTerminatingCause is the cause type kube-apiserver adds
// (v1.NamespaceTerminatingCause).
const namespaceTerminatingCause metav1.CauseType = "NamespaceTerminating"

// checkNamespace is NotFound for a missing namespace ns and Forbidden, as
// the NamespaceLifecycle admission words it, for one being deleted.
func (h *Handler) checkNamespace(res *Resource, name, ns string) error {
	var o engine.Object
	var ok bool
	h.opts.Store.Read(func(m *engine.Model) { o, ok = m.Object(engine.NamespaceRef(ns).Key()) })
	switch {
	case !ok:
		return errNotFound(h.byKind["/Namespace"], ns)
	case o.Deleting():
		d := details(res, name)
		d.Causes = []metav1.StatusCause{{Type: namespaceTerminatingCause,
			Message: fmt.Sprintf("namespace %s is being terminated", ns), Field: "metadata.namespace"}}
		return newStatus(http.StatusForbidden, metav1.StatusReasonForbidden, fmt.Sprintf(
			"%s %q is forbidden: unable to create new content in namespace %s because it is being terminated",
			res.GroupResource(), name, ns), d)
	}
	return nil
}

// namespacePhase is a Namespace's status.phase.
func namespacePhase(o engine.Object) string {
	if o.Deleting() {
		return "Terminating"
	}
	return "Active"
}
