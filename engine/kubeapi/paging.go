package kubeapi

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rackboot/rackboot/engine"
)

// Paging (`limit` and `continue`), as kube-apiserver pages a list over
// etcd: the items are in key order, a page ends with a continue token
// holding the list's resourceVersion and the key to start after, and the
// next pages are served from the objects as they were at that
// resourceVersion (the watch cache's changes undone), so the pages make
// one consistent list. A token older than the watch cache's window is 410
// Gone (Expired) with a token that continues at the current state
// (resourceVersion -1), as the API server answers a compacted one.

// continueToken is the API server's continue token (base64 of its JSON).
type continueToken struct {
	APIVersion      string `json:"v"`
	ResourceVersion int64  `json:"rv"`
	StartKey        string `json:"start"`
}

func (t continueToken) encode() string {
	b, _ := json.Marshal(t)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeContinue(s string) (continueToken, error) {
	var t continueToken
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return t, errBadRequest("invalid continue token: %v", err)
	}
	if err := json.Unmarshal(b, &t); err != nil || t.APIVersion != "meta.k8s.io/v1" || t.StartKey == "" {
		return t, errBadRequest("invalid continue token: not a continue token of this server")
	}
	if t.ResourceVersion == 0 || t.ResourceVersion < -1 {
		return t, errBadRequest("invalid continue token: incorrect encoded start resourceVersion (version meta.k8s.io/v1)")
	}
	return t, nil
}

// inconsistentContinue is kube-apiserver's answer to a compacted token.
const inconsistentContinue = "The provided continue parameter is too old to display a consistent list result. " +
	"You can start a new list without the continue parameter, or use the continue token in this response to retrieve " +
	"the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that " +
	"were created, modified, or deleted between the time the first chunk was returned and now may show up in the list."

// page is what a list request asks for.
type page struct {
	limit int64
	token *continueToken
	exact uint64 // resourceVersionMatch=Exact: the list at this index
}

func parsePage(r *http.Request) (page, error) {
	q := r.URL.Query()
	var p page
	if s := q.Get("limit"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			return p, errBadRequest("invalid limit %q: must be a non-negative integer", s)
		}
		p.limit = n
	}
	if s := q.Get("continue"); s != "" {
		if rv := q.Get("resourceVersion"); rv != "" && rv != "0" {
			return p, newStatus(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
				`ListOptions.meta.k8s.io "" is invalid: resourceVersion: Forbidden: specifying resource version is not allowed when using continue`, nil)
		}
		t, err := decodeContinue(s)
		if err != nil {
			return p, err
		}
		p.token = &t
	}
	return p, nil
}

// listed is one page of a list.
type listed struct {
	objs      []engine.Object
	index     uint64 // the list's resourceVersion
	cont      string
	remaining *int64
}

// listPage reads one page of a list of res (not Events) from the watch
// cache in O(page): at the token's resourceVersion for a continued list,
// else at the store's current index.
func (h *Handler) listPage(ctx context.Context, req *request, p page, sel selector) (listed, error) {
	q := pageQuery{group: req.res.Group, kind: req.res.Kind, ns: req.ns, limit: p.limit,
		match: sel.matches, count: sel.empty()}
	if p.token != nil {
		q.start = p.token.StartKey
	}
	for {
		var rv uint64
		switch {
		case p.exact > 0:
			rv = p.exact
		case p.token != nil && p.token.ResourceVersion > 0:
			rv = uint64(p.token.ResourceVersion)
		default:
			h.opts.Store.Read(func(m *engine.Model) { rv = m.Index() })
		}
		res, gone, err := h.cache.page(ctx, rv, q)
		if err != nil {
			return listed{}, err
		}
		if gone && p.exact > 0 {
			return listed{}, newStatus(http.StatusGone, metav1.StatusReasonExpired, expiredList, nil)
		}
		if gone && (p.token == nil || p.token.ResourceVersion < 0) {
			continue // the cache reloaded after rv was read: read the current index again
		}
		if gone {
			s := newStatus(http.StatusGone, metav1.StatusReasonExpired, inconsistentContinue, nil)
			s.status.ListMeta.Continue = continueToken{APIVersion: "meta.k8s.io/v1", ResourceVersion: -1, StartKey: p.token.StartKey}.encode()
			return listed{}, s
		}
		out := listed{objs: res.objs, index: rv}
		if res.more {
			out.cont = continueToken{APIVersion: "meta.k8s.io/v1", ResourceVersion: int64(rv),
				StartKey: res.objs[len(res.objs)-1].Key() + "\x00"}.encode()
			if q.count {
				out.remaining = &res.remaining
			}
		}
		return out, nil
	}
}

// eventsAt returns the Events in key order and the list's resourceVersion
// (an Event's is its domain event's sequence number, events_watch.go).
func (h *Handler) eventsAt(req *request) ([]engine.Object, uint64) {
	var objs []engine.Object
	var index uint64
	h.opts.Store.Read(func(m *engine.Model) {
		for o := range m.Objects(req.res.Group, req.res.Kind, req.ns) {
			objs = append(objs, o)
		}
		index = lastEventSeq(m, 0)
		objs = append(objs, domainEvents(m, req.ns, 0)...)
		slicesSortFunc(objs)
	})
	return objs, index
}

// paginate keeps the objects after the token's start key, at most limit
// of them, and makes the token of the next page.
func paginate(objs []engine.Object, index uint64, p page, counted bool) listed {
	if p.token != nil {
		start := p.token.StartKey
		i, _ := slices.BinarySearchFunc(objs, start, func(o engine.Object, k string) int { return strings.Compare(o.Key(), k) })
		objs = objs[i:]
	}
	out := listed{objs: objs, index: index}
	if p.limit <= 0 || int64(len(objs)) <= p.limit {
		return out
	}
	rest := int64(len(objs)) - p.limit
	out.objs = objs[:p.limit]
	out.cont = continueToken{APIVersion: "meta.k8s.io/v1", ResourceVersion: int64(index),
		StartKey: out.objs[len(out.objs)-1].Key() + "\x00"}.encode()
	if counted {
		out.remaining = &rest
	}
	return out
}

// listMeta is a list's metadata.
func (l listed) listMeta() map[string]any {
	md := map[string]any{"resourceVersion": strconv.FormatUint(l.index, 10)}
	if l.cont != "" {
		md["continue"] = l.cont
	}
	if l.remaining != nil {
		md["remainingItemCount"] = *l.remaining
	}
	return md
}
