package kubeapi

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rackboot/rackboot/engine"
)

// lookup returns the stored object req names.
func (h *Handler) lookup(req *request) (engine.Object, bool) {
	key := engine.ObjectRef{Group: req.res.Group, Kind: req.res.Kind, Namespace: req.ns, Name: req.name}.Key()
	var o engine.Object
	var ok bool
	h.opts.Store.Read(func(m *engine.Model) { o, ok = m.Object(key) })
	return o, ok
}

// current returns the stored object and its view, or NotFound.
func (h *Handler) current(req *request) (engine.Object, map[string]any, error) {
	o, ok := h.lookup(req)
	if !ok {
		return o, nil, errNotFound(req.res, req.name)
	}
	view, err := h.render(req.res, o)
	return o, view, err
}

func (h *Handler) get(w http.ResponseWriter, r *http.Request, req *request) error {
	if r.URL.Query().Get("resourceVersion") == "" {
		if err := h.opts.Store.Barrier(r.Context()); err != nil {
			return storeError(req.res, req.name, err)
		}
	}
	o, view, err := h.current(req)
	if err != nil {
		return err
	}
	return h.respond(w, r, req, http.StatusOK, []engine.Object{o}, []map[string]any{view}, o.Revision)
}

// respond writes one object (or its Table row when asked for a Table).
func (h *Handler) respond(w http.ResponseWriter, r *http.Request, req *request, code int, objs []engine.Object, views []map[string]any, rev uint64) error {
	if wantsTable(r) {
		writeJSON(w, code, h.table(req.res, r, objs, views, rev))
		return nil
	}
	writeJSON(w, code, views[0])
	return nil
}

func (h *Handler) list(w http.ResponseWriter, r *http.Request, req *request) error {
	sel, err := parseSelectors(req, r)
	if err != nil {
		return err
	}
	lv, err := parseListVersion(r)
	if err != nil {
		return err
	}
	pg, err := parsePage(r)
	if err != nil {
		return err
	}
	if r.URL.Query().Get("resourceVersion") == "" && (pg.token == nil || pg.token.ResourceVersion < 0) {
		if err := h.opts.Store.Barrier(r.Context()); err != nil {
			return storeError(req.res, "", err)
		}
	}
	current := modelIndex
	if isEvent(req.res) {
		current = eventsIndex
	}
	if err := h.reached(r.Context(), req.res, lv, current); err != nil {
		return err
	}
	if lv.exact {
		pg.exact = lv.rv
	}
	var page listed
	if isEvent(req.res) {
		page, err = h.listEvents(req, pg, sel)
	} else {
		page, err = h.listPage(r.Context(), req, pg, sel)
	}
	if err != nil {
		return err
	}
	index := page.index
	if !wantsTable(r) {
		return h.writeList(w, req.res, page)
	}
	views, err := h.tableViews(req.res, r, page.objs)
	if err != nil {
		return err
	}
	t := h.table(req.res, r, page.objs, views, index)
	t["metadata"] = page.listMeta()
	writeJSON(w, http.StatusOK, t)
	return nil
}

// listEvents is a page of Events, selected by their fields. Events are
// not in the watch cache: a continued list reads the current ones.
func (h *Handler) listEvents(req *request, pg page, sel selector) (listed, error) {
	objs, index := h.eventsAt(req)
	views, err := h.renderAll(req.res, objs)
	if err != nil {
		return listed{}, err
	}
	objs, _ = selectEvents(sel, objs, views)
	return paginate(objs, index, pg, sel.empty()), nil
}

// renderAll renders objs.
func (h *Handler) renderAll(res *Resource, objs []engine.Object) ([]map[string]any, error) {
	views := make([]map[string]any, len(objs))
	for i, o := range objs {
		v, err := h.render(res, o)
		if err != nil {
			return nil, err
		}
		views[i] = v
	}
	return views, nil
}

// selectEvents keeps the Events sel selects (by their fields).
func selectEvents(sel selector, objs []engine.Object, views []map[string]any) ([]engine.Object, []map[string]any) {
	var o2 []engine.Object
	var v2 []map[string]any
	for i, o := range objs {
		if sel.matchesEvent(o, views[i]) {
			o2, v2 = append(o2, o), append(v2, views[i])
		}
	}
	return o2, v2
}

// readObject reads a JSON object (or a v1 kind in protobuf) from the
// request body, and the fields the JSON sets twice (duplicateFields).
func (h *Handler) readObject(r *http.Request) (map[string]any, []string, error) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, nil, newStatus(http.StatusRequestEntityTooLarge, metav1.StatusReasonRequestEntityTooLarge,
				fmt.Sprintf("Request entity too large: limit is %d", mbe.Limit), nil)
		}
		return nil, nil, errBadRequest("reading the request: %v", err)
	}
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct == protobufType {
		if b, err = h.proto.toJSON(b); err != nil {
			return nil, nil, newStatus(http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType,
				fmt.Sprintf("the body of the request was in an unknown format: %v", err), nil)
		}
	}
	obj, err := decodeObject(b)
	if err != nil {
		return nil, nil, errBadRequest("the body of the request was in an unknown format: %v", err)
	}
	return obj, duplicateFields(b), nil
}

func (h *Handler) create(w http.ResponseWriter, r *http.Request, req *request) error {
	if req.sub != "" {
		return errMethod(r.Method)
	}
	obj, dups, err := h.readObject(r)
	if err != nil {
		return err
	}
	if err := checkFields(w, r, req.res, obj, dups); err != nil {
		return err
	}
	if obj, err = manageUpdate(r, req, nil, obj); err != nil {
		return err
	}
	wr, err := h.admit(req, obj, nil, nil)
	if err != nil {
		return err
	}
	return h.store(w, r, req, wr, true, http.StatusCreated)
}

// store writes wr (unless it is a dry run) and answers with the stored
// object.
func (h *Handler) store(w http.ResponseWriter, r *http.Request, req *request, wr write, create bool, code int) error {
	req = &request{res: req.res, ns: wr.obj.Namespace, name: wr.obj.Name, gv: req.gv}
	if r.URL.Query().Get("dryRun") != "" {
		if !create {
			if cur, ok := h.lookup(req); ok {
				wr.obj.Meta = cur.Meta
			}
		}
		view, err := h.render(req.res, wr.obj)
		if err != nil {
			return err
		}
		return h.respond(w, r, req, code, []engine.Object{wr.obj}, []map[string]any{view}, wr.obj.Revision)
	}
	// Refuse what the command would refuse before it is appended (a race
	// with another writer is still refused by the command).
	cur, exists := h.lookup(req)
	switch {
	case create && exists:
		return errAlreadyExists(req.res, req.name)
	case !create && !exists:
		return errNotFound(req.res, req.name)
	case !create && wr.ifRevision != 0 && cur.Revision != wr.ifRevision:
		return errConflict(req.res, req.name)
	case !create && unchanged(cur, wr.obj):
		// A write that changes nothing keeps the resourceVersion (kubectl
		// prints "patched (no change)") and appends nothing.
		view, err := h.render(req.res, cur)
		if err != nil {
			return err
		}
		return h.respond(w, r, req, code, []engine.Object{cur}, []map[string]any{view}, cur.Revision)
	}
	if _, err := h.opts.Store.Apply(r.Context(), &engine.PutObject{Object: wr.obj, Create: create, IfRevision: wr.ifRevision}); err != nil {
		return storeError(req.res, wr.obj.Name, err)
	}
	o, view, err := h.current(req)
	if err != nil && !create && cur.Deleting() {
		// The write removed the last finalizer of an object being
		// deleted: it is gone; the answer is the object as written.
		o, o.Meta, o.DeletionTimestamp = wr.obj, cur.Meta, cur.DeletionTimestamp
		view, err = h.render(req.res, o)
	}
	if err != nil {
		return err
	}
	return h.respond(w, r, req, code, []engine.Object{o}, []map[string]any{view}, o.Revision)
}

// unchanged reports whether storing o would change nothing of cur.
func unchanged(cur, o engine.Object) bool {
	return bytes.Equal(cur.Body, o.Body) && cur.Generation == o.Generation && maps.Equal(cur.Labels, o.Labels)
}

func (h *Handler) update(w http.ResponseWriter, r *http.Request, req *request) error {
	obj, dups, err := h.readObject(r)
	if err != nil {
		return err
	}
	cur, curView, err := h.current(req)
	if err != nil {
		return err
	}
	if err := checkFields(w, r, req.res, obj, dups); err != nil {
		return err
	}
	if obj, err = manageUpdate(r, req, curView, obj); err != nil {
		return err
	}
	wr, err := h.admit(req, obj, &cur, curView)
	if err != nil {
		return err
	}
	return h.store(w, r, req, wr, false, http.StatusOK)
}

func (h *Handler) delete(w http.ResponseWriter, r *http.Request, req *request) error {
	cur, view, err := h.current(req)
	if err != nil {
		return err
	}
	opts, err := deleteOptions(r)
	if err != nil {
		return err
	}
	var ifRev uint64
	if p := opts.Preconditions; p != nil {
		if p.UID != nil && string(*p.UID) != cur.UID {
			return newStatus(http.StatusConflict, metav1.StatusReasonConflict, fmt.Sprintf(
				"Precondition failed: UID in precondition: %s, UID in object meta: %s", *p.UID, cur.UID), details(req.res, req.name))
		}
		if p.ResourceVersion != nil {
			n, ok := revision(*p.ResourceVersion)
			if !ok || n != cur.Revision {
				return errConflict(req.res, req.name)
			}
			ifRev = n
		}
	}
	code := http.StatusOK
	if len(opts.DryRun) == 0 && r.URL.Query().Get("dryRun") == "" {
		if _, err := h.opts.Store.Apply(r.Context(), &engine.DeleteObject{Ref: cur.ObjectRef, IfRevision: ifRev, Propagation: propagation(opts)}); err != nil {
			return storeError(req.res, req.name, err)
		}
		// With finalizers the object stays, marked with its
		// deletionTimestamp: the answer shows it so (202 Accepted when
		// asked with orphanDependents false, as kube-apiserver answers).
		if o, v, err := h.current(req); err == nil && o.Deleting() {
			view = v
			if od := opts.OrphanDependents; od != nil && !*od { //nolint:staticcheck // the deprecated option is still served
				code = http.StatusAccepted
			}
		}
	}
	writeJSON(w, code, view)
	return nil
}
