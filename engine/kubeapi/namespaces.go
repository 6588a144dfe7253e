package kubeapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rackboot/rackboot/engine"
)

// Namespace deletion is the engine's (engine/cmd_namespace.go): a deleted
// Namespace is Terminating (status.phase, its deletionTimestamp) while its
// objects' finalizers run, and goes with its last object. Here: the
// phase, the namespace controller's deletion conditions (written by the
// leader: nsconditions.go), and kube-apiserver's NamespaceLifecycle
// refusal of a create in a Terminating namespace.

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

// namespaceStatus is a Namespace's status as served: the conditions
// written through /status (stored: a map, or undecoded JSON from
// renderRaw), the phase, and while it is Terminating the conditions
// kube's namespace controller reports (deletionConditions) in place of
// written ones of the same types.
func (h *Handler) namespaceStatus(o engine.Object, stored any) map[string]any {
	st, _ := stored.(map[string]any)
	if raw, ok := stored.(json.RawMessage); ok {
		if v, err := decodeJSON(raw); err == nil {
			st, _ = v.(map[string]any)
		}
	}
	if st == nil {
		st = map[string]any{}
	}
	st["phase"] = namespacePhase(o)
	if !o.Deleting() {
		return st
	}
	deletion := h.deletionConditions(o)
	conds, _ := st["conditions"].([]any)
	kept := []any{}
	for _, c := range conds {
		cm, _ := c.(map[string]any)
		if t, _ := cm["type"].(string); !slices.Contains(deletionConditionTypes, t) {
			kept = append(kept, c)
		}
	}
	st["conditions"] = append(kept, deletion...)
	return st
}

// deletionConditionTypes are the namespace controller's condition types,
// in its order.
var deletionConditionTypes = []string{
	string(corev1.NamespaceDeletionDiscoveryFailure), string(corev1.NamespaceDeletionGVParsingFailure),
	string(corev1.NamespaceDeletionContentFailure), string(corev1.NamespaceContentRemaining),
	string(corev1.NamespaceFinalizersRemaining),
}

// deletionConditions are the conditions of Terminating namespace o as
// kube's namespace controller words them: discovery, parsing and
// deletion went well (the engine deleted or marked every object at
// once); the content remaining (objects held by finalizers) by resource,
// and their finalizers, or that there is none. Their transition time is
// the deletion's.
func (h *Handler) deletionConditions(o engine.Object) []any {
	byResource, byFinalizer := map[string]int{}, map[string]int{}
	h.opts.Store.Read(func(m *engine.Model) {
		for _, r := range h.res {
			if !r.Namespaced {
				continue
			}
			for obj := range m.Objects(r.Group, r.Kind, o.Name) {
				byResource[r.Plural+"."+r.Group]++
				for _, f := range obj.Finalizers() {
					byFinalizer[f]++
				}
			}
		}
	})
	when := o.DeletionTimestamp.UTC().Format(time.RFC3339)
	cond := func(typ, status, reason, msg string) any {
		return map[string]any{"type": typ, "status": status, "reason": reason, "message": msg, "lastTransitionTime": when}
	}
	out := []any{
		cond(deletionConditionTypes[0], "False", "ResourcesDiscovered", "All resources successfully discovered"),
		cond(deletionConditionTypes[1], "False", "ParsedGroupVersions", "All legacy kube types successfully parsed"),
		cond(deletionConditionTypes[2], "False", "ContentDeleted", "All content successfully deleted, may be waiting on finalization"),
	}
	if len(byResource) == 0 {
		out = append(out, cond(deletionConditionTypes[3], "False", "ContentRemoved", "All content successfully removed"))
	} else {
		out = append(out, cond(deletionConditionTypes[3], "True", "SomeResourcesRemain",
			"Some resources are remaining: "+counted(byResource, "%s has %d resource instances")))
	}
	if len(byFinalizer) == 0 {
		out = append(out, cond(deletionConditionTypes[4], "False", "ContentHasNoFinalizers", "All content-preserving finalizers finished"))
	} else {
		out = append(out, cond(deletionConditionTypes[4], "True", "SomeFinalizersRemain",
			"Some content in the namespace has finalizers remaining: "+counted(byFinalizer, "%s in %d resource instances")))
	}
	return out
}

// counted formats each name and count of counts, sorted, joined by ", ".
func counted(counts map[string]int, format string) string {
	parts := make([]string, 0, len(counts))
	for name, n := range counts {
		parts = append(parts, fmt.Sprintf(format, name, n))
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}
