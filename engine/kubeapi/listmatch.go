package kubeapi

import (
	"context"
	"fmt"
	"net/http"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/internalversion"
	"k8s.io/apimachinery/pkg/apis/meta/internalversion/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/rackboot/rackboot/engine"
)

// A list's resourceVersion and resourceVersionMatch, as kube-apiserver
// takes them: "" the newest state (a linearizable read), "0" any state,
// N with match "" or NotOlderThan a state no older than N, N with Exact
// the state at N (from the watch cache's window: an N that has left it
// is 410 Gone, "The resourceVersion for the provided list is too old.").
// An N the rack has not reached is kube's 504 "Too large resource
// version" once a barrier has made sure of it (kube-apiserver waits for
// its cache up to 3 s first: rackboot's barrier answers at once). The
// options are checked by apimachinery's ValidateListOptions, 422 Invalid
// ListOptions in its words.

// expiredList is kube-apiserver's answer to an Exact list at a
// resourceVersion it no longer has.
const expiredList = "The resourceVersion for the provided list is too old."

// listVersion is the state a list asks for.
type listVersion struct {
	rv    uint64 // 0: the newest ("") or any ("0")
	exact bool
}

// parseListVersion reads and checks a list's resourceVersion options.
func parseListVersion(r *http.Request) (listVersion, error) {
	q := r.URL.Query()
	opts := internalversion.ListOptions{ResourceVersion: q.Get("resourceVersion"),
		ResourceVersionMatch: metav1.ResourceVersionMatch(q.Get("resourceVersionMatch")), Continue: q.Get("continue")}
	if v, ok := q["sendInitialEvents"]; ok {
		b := v[0] == "true"
		opts.SendInitialEvents = &b
	}
	if errs := validation.ValidateListOptions(&opts, true); len(errs) > 0 {
		return listVersion{}, invalidListOptions(errs)
	}
	if opts.ResourceVersion == "" {
		return listVersion{}, nil
	}
	n, err := strconv.ParseUint(opts.ResourceVersion, 10, 64)
	if err != nil {
		// The storage's answer (APIObjectVersioner.ParseResourceVersion).
		return listVersion{}, newStatus(http.StatusInternalServerError, metav1.StatusReasonUnknown,
			field.ErrorList{field.Invalid(field.NewPath("resourceVersion"), opts.ResourceVersion, err.Error())}.ToAggregate().Error(), nil)
	}
	return listVersion{rv: n, exact: opts.ResourceVersionMatch == metav1.ResourceVersionMatchExact}, nil
}

func invalidListOptions(errs field.ErrorList) error {
	se := apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "ListOptions"}, "", errs)
	return &apiError{status: withTypeMeta(se.ErrStatus)}
}

// errTooLarge is kube's answer to a resourceVersion beyond the newest.
func errTooLarge(rv, current uint64) error {
	se := apierrors.NewTimeoutError(fmt.Sprintf("Too large resource version: %d, current: %d", rv, current), 1)
	se.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}}
	return &apiError{status: withTypeMeta(se.ErrStatus)}
}

// reached makes sure the state v asks for exists: when v.rv is beyond
// this node's newest (current reads it: the raft index, or the Events'
// sequence), a barrier catches up with the rack, and an rv beyond it
// still is errTooLarge. An Exact list of Events (which have no history)
// at another than the newest is 410 Gone.
func (h *Handler) reached(ctx context.Context, res *Resource, v listVersion, current func(m *engine.Model) uint64) error {
	if v.rv == 0 {
		return nil
	}
	var cur uint64
	h.opts.Store.Read(func(m *engine.Model) { cur = current(m) })
	if v.rv > cur {
		if err := h.opts.Store.Barrier(ctx); err != nil {
			return storeError(res, "", err)
		}
		h.opts.Store.Read(func(m *engine.Model) { cur = current(m) })
		if v.rv > cur {
			return errTooLarge(v.rv, cur)
		}
	}
	if v.exact && isEvent(res) && v.rv != cur {
		return newStatus(http.StatusGone, metav1.StatusReasonExpired, expiredList, nil)
	}
	return nil
}

func modelIndex(m *engine.Model) uint64  { return m.Index() }
func eventsIndex(m *engine.Model) uint64 { return lastEventSeq(m, 0) }
