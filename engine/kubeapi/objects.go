package kubeapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/rackboot/rackboot/engine"
)

// serverFields are the metadata fields the server owns: dropped from what
// a client writes, filled in when an object is served.
// metadata.managedFields is kept in the body (managed.go sets it).
var serverFields = []string{"uid", "resourceVersion", "creationTimestamp", "generation", "selfLink",
	"deletionTimestamp", "deletionGracePeriodSeconds"}

// decodeJSON parses b into a generic value, numbers kept as json.Number
// so that they are written back as they came.
func decodeJSON(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("data after the JSON value")
	}
	return v, nil
}

// decodeObject parses a JSON object.
func decodeObject(b []byte) (map[string]any, error) {
	v, err := decodeJSON(b)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("not a JSON object")
	}
	return m, nil
}

// metadata returns obj's metadata map, adding an empty one.
func metadata(obj map[string]any) map[string]any {
	m, ok := obj["metadata"].(map[string]any)
	if !ok {
		m = map[string]any{}
		obj["metadata"] = m
	}
	return m
}

// render returns the client's view of o: its body with apiVersion, kind
// and the server's metadata fields, Secret data opened.
func (h *Handler) render(res *Resource, o engine.Object) (map[string]any, error) {
	obj, err := decodeObject(o.Body)
	if err != nil {
		return nil, fmt.Errorf("stored object %s: %w", o.Key(), err)
	}
	return h.finish(res, o, obj)
}

// finish completes obj, o's body or a part of it, as render does.
func (h *Handler) finish(res *Resource, o engine.Object, obj map[string]any) (map[string]any, error) {
	obj["apiVersion"] = res.GroupVersion()
	obj["kind"] = res.Kind
	md := metadata(obj)
	md["name"] = o.Name
	if o.Namespace != "" {
		md["namespace"] = o.Namespace
	}
	md["uid"] = o.UID
	md["resourceVersion"] = strconv.FormatUint(o.Revision, 10)
	md["creationTimestamp"] = o.CreatedAt.UTC().Format(time.RFC3339)
	if o.Generation != 0 {
		md["generation"] = o.Generation
	}
	if o.Deleting() {
		md["deletionTimestamp"] = o.DeletionTimestamp.UTC().Format(time.RFC3339)
		md["deletionGracePeriodSeconds"] = 0
	}
	switch {
	case res.Group == "" && res.Kind == "Secret":
		if err := h.openSecret(o, obj); err != nil {
			return nil, err
		}
	case res.Group == "" && res.Kind == "Namespace":
		obj["status"] = h.namespaceStatus(o, obj["status"])
		obj["spec"] = map[string]any{"finalizers": []any{"kubernetes"}}
	}
	return obj, nil
}

// revision parses a resourceVersion ("" is 0).
func revision(s string) (uint64, bool) {
	if s == "" {
		return 0, true
	}
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil
}
