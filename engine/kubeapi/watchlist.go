package kubeapi

import (
	"github.com/rackboot/rackboot/engine/kubekinds"
	"net/http"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rackboot/rackboot/engine"
)

// Bookmarks and streamed initial state (kube's WatchList), as
// kube-apiserver serves them from its watch cache:
//   - allowWatchBookmarks=true: a BOOKMARK event (an object of the kind
//     with only metadata.resourceVersion: every change up to it has been
//     sent) every bookmarkEvery, and one as the watch ends at its
//     timeoutSeconds, so the client resumes from there;
//   - sendInitialEvents=true (with resourceVersionMatch=NotOlderThan and
//     allowWatchBookmarks=true): the objects as of a state no older than
//     resourceVersion (the newest when it is ""), each ADDED, then a
//     BOOKMARK annotated k8s.io/initial-events-end: "true" at that state;
//     sendInitialEvents=false: no initial events, even for
//     resourceVersion "" or "0".

// bookmarkEvery is how often a watch that allows bookmarks gets one (as
// kube-apiserver's watch cache, about every minute).
const bookmarkEvery = time.Minute

// initialEventsEnd is the annotation of the bookmark that ends the
// initial events (metav1.InitialEventsAnnotationKey).
const initialEventsEnd = "k8s.io/initial-events-end"

// watchOptions are a watch's bookmark and initial-events parameters.
type watchOptions struct {
	bookmarks bool
	initial   string // sendInitialEvents: "", "true" or "false"
}

// parseWatchOptions reads and checks them as kube-apiserver's
// ValidateListOptions does for a watch (422 Invalid ListOptions).
func parseWatchOptions(r *http.Request) (watchOptions, error) {
	q := r.URL.Query()
	o := watchOptions{bookmarks: q.Get("allowWatchBookmarks") == "true", initial: q.Get("sendInitialEvents")}
	match := q.Get("resourceVersionMatch")
	var causes []cause
	switch {
	case o.initial != "" && o.initial != "true" && o.initial != "false":
		return o, errBadRequest("sendInitialEvents: invalid value %q: want true or false", o.initial)
	case match != "" && match != string(metav1.ResourceVersionMatchNotOlderThan) && match != string(metav1.ResourceVersionMatchExact):
		causes = append(causes, cause{"resourceVersionMatch", `Unsupported value: "` + match + `": supported values: "Exact", "NotOlderThan", ""`,
			metav1.CauseTypeFieldValueNotSupported})
	case o.initial == "" && match != "":
		causes = append(causes, cause{"resourceVersionMatch",
			"Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided", metav1.CauseTypeForbidden})
	case o.initial != "" && match != string(metav1.ResourceVersionMatchNotOlderThan):
		causes = append(causes, cause{"resourceVersionMatch",
			"Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan", metav1.CauseTypeForbidden})
	}
	if o.initial == "true" && !o.bookmarks {
		causes = append(causes, cause{"allowWatchBookmarks",
			"Forbidden: sendInitialEvents requires setting allowWatchBookmarks to true", metav1.CauseTypeForbidden})
	}
	if len(causes) > 0 {
		return o, errInvalid(&Resource{Resource: kubekinds.Resource{Group: metav1.GroupName, Kind: "ListOptions"}}, "", causes...)
	}
	return o, nil
}

// freshIndex is the index a sendInitialEvents watch's state must reach:
// resourceVersion, or the store's newest object change when it is "".
func (h *Handler) freshIndex(r *http.Request, rv uint64) uint64 {
	if rv != 0 || r.URL.Query().Get("resourceVersion") == "0" {
		return rv
	}
	var idx uint64
	h.opts.Store.Read(func(m *engine.Model) { idx = m.ObjectIndex() })
	return idx
}

// bookmark sends a BOOKMARK event at index (initialEnd: the one that ends
// the initial events).
func (s *stream) bookmark(index uint64, initialEnd bool) error {
	md := map[string]any{"resourceVersion": strconv.FormatUint(index, 10)}
	if initialEnd {
		md["annotations"] = map[string]any{initialEventsEnd: "true"}
	}
	res := s.req.res
	return writeEvent(s.w, "BOOKMARK", map[string]any{"apiVersion": res.GroupVersion(), "kind": res.Kind, "metadata": md})
}
