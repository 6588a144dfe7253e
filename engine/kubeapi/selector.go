package kubeapi

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/rackboot/rackboot/engine"
)

// selector is a list's or watch's filter: namespace, label selector and
// the field selectors every kind supports (metadata.name,
// metadata.namespace).
type selector struct {
	ns     string
	labels labels.Selector
	fields fields.Selector
}

func parseSelectors(req *request, r *http.Request) (selector, error) {
	q := r.URL.Query()
	ls, err := labels.Parse(q.Get("labelSelector"))
	if err != nil {
		return selector{}, errBadRequest("unable to parse requirement: %v", err)
	}
	fs, err := fields.ParseSelector(q.Get("fieldSelector"))
	if err != nil {
		return selector{}, errBadRequest("invalid field selector: %v", err)
	}
	for _, rq := range fs.Requirements() {
		if rq.Field != "metadata.name" && rq.Field != "metadata.namespace" && !(isEvent(req.res) && slices.Contains(eventFields(), rq.Field)) {
			return selector{}, errBadRequest("field label not supported: %s", rq.Field)
		}
	}
	return selector{ns: req.ns, labels: ls, fields: fs}, nil
}

func (s selector) matches(o engine.Object) bool {
	if s.ns != "" && o.Namespace != s.ns {
		return false
	}
	if s.labels != nil && !s.labels.Matches(labels.Set(o.Labels)) {
		return false
	}
	return s.fields == nil || s.fields.Matches(fields.Set{"metadata.name": o.Name, "metadata.namespace": o.Namespace})
}

// matchesEvent reports whether an Event's view is selected: by namespace,
// labels and its fields (eventFieldSet).
func (s selector) matchesEvent(o engine.Object, view map[string]any) bool {
	if s.ns != "" && o.Namespace != s.ns {
		return false
	}
	if s.labels != nil && !s.labels.Matches(labels.Set(o.Labels)) {
		return false
	}
	return s.fields == nil || s.fields.Matches(eventFieldSet(view))
}

// empty reports whether s selects by namespace only (then a page can
// count what remains).
func (s selector) empty() bool {
	return (s.labels == nil || s.labels.Empty()) && (s.fields == nil || s.fields.Empty())
}

func (s selector) String() string {
	return fmt.Sprintf("ns=%s labels=%s", s.ns, strings.TrimSpace(s.labels.String()))
}
