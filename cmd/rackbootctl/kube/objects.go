package kube

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/url"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// fieldManager names rackbootctl's writes.
const fieldManager = "rackbootctl"

// ListOptions select objects: a label selector and, for one object, its
// name (a field selector, as kubectl sends for a watch of one object).
type ListOptions struct {
	LabelSelector string
	Name          string
}

func (o ListOptions) query() url.Values {
	q := url.Values{}
	if o.LabelSelector != "" {
		q.Set("labelSelector", o.LabelSelector)
	}
	if o.Name != "" {
		q.Set("fieldSelector", "metadata.name="+o.Name)
	}
	return q
}

// writeQuery is the query of a write: the field manager and dryRun.
func writeQuery(dryRun bool) url.Values {
	q := url.Values{"fieldManager": {fieldManager}}
	if dryRun {
		q.Set("dryRun", "All")
	}
	return q
}

// Get reads one object.
func (c *Client) Get(ctx context.Context, r Resource, ns, name string) (*unstructured.Unstructured, error) {
	var m map[string]any
	if err := c.do(ctx, request{method: "GET", path: r.Path(ns, name)}, &m); err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: m}, nil
}

// List reads the objects of ns ("" every namespace) that o selects.
func (c *Client) List(ctx context.Context, r Resource, ns string, o ListOptions) (*unstructured.UnstructuredList, error) {
	var m map[string]any
	if err := c.do(ctx, request{method: "GET", path: r.Path(ns, ""), query: o.query()}, &m); err != nil {
		return nil, err
	}
	l := &unstructured.UnstructuredList{}
	if err := l.UnmarshalJSON(mustJSON(m)); err != nil {
		return nil, fmt.Errorf("decoding the %s list: %w", r.GroupResource(), err)
	}
	return l, nil
}

// Table reads the server's Table of the objects (name "": a list), with
// every column (the caller drops those of priority > 0 unless wide).
func (c *Client) Table(ctx context.Context, r Resource, ns, name string, o ListOptions) (*metav1.Table, error) {
	var t metav1.Table
	err := c.do(ctx, request{method: "GET", path: r.Path(ns, name), query: o.query(), accept: acceptTable}, &t)
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// Create creates obj in ns.
func (c *Client) Create(ctx context.Context, r Resource, ns string, obj *unstructured.Unstructured, dryRun bool) (*unstructured.Unstructured, error) {
	b, err := obj.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("encoding %s %q: %w", r.Kind, obj.GetName(), err)
	}
	var m map[string]any
	err = c.do(ctx, request{method: "POST", path: r.Path(ns, ""), query: writeQuery(dryRun), ctype: contentJSON, body: b}, &m)
	if err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: m}, nil
}

// MergePatch applies a JSON merge patch to one object.
func (c *Client) MergePatch(ctx context.Context, r Resource, ns, name string, patch []byte, dryRun bool) (*unstructured.Unstructured, error) {
	var m map[string]any
	err := c.do(ctx, request{method: "PATCH", path: r.Path(ns, name), query: writeQuery(dryRun), ctype: contentMerge, body: patch}, &m)
	if err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: m}, nil
}

// Delete deletes one object (with finalizers: marks it deleted).
func (c *Client) Delete(ctx context.Context, r Resource, ns, name string, dryRun bool) error {
	q := url.Values{}
	if dryRun {
		q.Set("dryRun", "All")
	}
	return c.do(ctx, request{method: "DELETE", path: r.Path(ns, name), query: q}, nil)
}

// Event is one change of a watch.
type Event struct {
	Type   string // ADDED, MODIFIED, DELETED, ERROR
	Object *unstructured.Unstructured
}

// Watch streams the changes of the objects o selects in ns after
// resourceVersion rv ("": ADDED for each current object first) to fn
// until fn returns done or an error, the context ends or the server ends
// the stream (nil error: the caller may watch again). An ERROR event is
// returned as a *StatusError.
func (c *Client) Watch(ctx context.Context, r Resource, ns, rv string, o ListOptions, fn func(Event) (bool, error)) error {
	return c.watch(ctx, r, ns, rv, o, "", func(typ string, raw json.RawMessage) (bool, error) {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			return false, fmt.Errorf("decoding a watch event: %w", err)
		}
		return fn(Event{Type: typ, Object: &unstructured.Unstructured{Object: m}})
	})
}

// WatchTable is Watch with each object as the server's Table of it (one
// row), as kubectl get -w asks.
func (c *Client) WatchTable(ctx context.Context, r Resource, ns, rv string, o ListOptions, fn func(string, *metav1.Table) (bool, error)) error {
	return c.watch(ctx, r, ns, rv, o, acceptTable, func(typ string, raw json.RawMessage) (bool, error) {
		var t metav1.Table
		if err := json.Unmarshal(raw, &t); err != nil {
			return false, fmt.Errorf("decoding a watch event: %w", err)
		}
		return fn(typ, &t)
	})
}

func (c *Client) watch(ctx context.Context, r Resource, ns, rv string, o ListOptions, accept string,
	fn func(string, json.RawMessage) (bool, error)) error {
	q := o.query()
	q.Set("watch", "true")
	if rv != "" {
		q.Set("resourceVersion", rv)
	}
	resp, err := c.open(ctx, request{method: "GET", path: r.Path(ns, ""), query: q, accept: accept})
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	dec := json.NewDecoder(bufio.NewReader(resp.Body))
	for {
		var ev struct {
			Type   string          `json:"type"`
			Object json.RawMessage `json:"object"`
		}
		if err := dec.Decode(&ev); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return nil // the server closed the stream
		}
		if ev.Type == "ERROR" {
			var st metav1.Status
			_ = json.Unmarshal(ev.Object, &st)
			return &StatusError{Status: st}
		}
		done, err := fn(ev.Type, ev.Object)
		if err != nil || done {
			return err
		}
	}
}

// mustJSON encodes a decoded JSON value again (which cannot fail).
func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// ListFields lists the objects of ns that a field selector picks (the
// involvedObject fields of Events).
func (c *Client) ListFields(ctx context.Context, r Resource, ns, fieldSelector string) (*unstructured.UnstructuredList, error) {
	var m map[string]any
	q := url.Values{"fieldSelector": {fieldSelector}}
	if err := c.do(ctx, request{method: "GET", path: r.Path(ns, ""), query: q}, &m); err != nil {
		return nil, err
	}
	l := &unstructured.UnstructuredList{}
	if err := l.UnmarshalJSON(mustJSON(m)); err != nil {
		return nil, fmt.Errorf("decoding the %s list: %w", r.GroupResource(), err)
	}
	return l, nil
}
