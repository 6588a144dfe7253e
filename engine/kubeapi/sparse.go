package kubeapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/rackboot/rackboot/engine"
)

// pathNode is one step of the JSON paths a sparse decode keeps: whole
// when the value under it is decoded whole (a path ends there, or goes on
// with an array filter), else only its children.
type pathNode struct {
	whole    bool
	children map[string]*pathNode
}

// pathTree is the tree of paths (lookupPath's syntax).
func pathTree(paths []string) *pathNode {
	root := &pathNode{children: map[string]*pathNode{}}
	for _, p := range paths {
		n := root
		for _, step := range splitPath(p) {
			if n.whole {
				break
			}
			if strings.HasPrefix(step, "[") {
				n.whole = true
				break
			}
			c := n.children[step]
			if c == nil {
				c = &pathNode{children: map[string]*pathNode{}}
				n.children[step] = c
			}
			n = c
		}
		if n != root {
			n.whole = true
		}
	}
	return root
}

// decodeSparse decodes from b only what the tree n keeps: the result has
// the same values at those paths as the whole decoded object, without
// the cost of decoding the rest (an Agent's inventory). It reads b once,
// skipping what the tree does not keep: decoding level by level with
// encoding/json scanned a 6 KB Agent about four times (each Unmarshal
// checks the whole input, then skips it again), 75% of the CPU of a
// 10,000-Agent Table list.
func decodeSparse(b []byte, n *pathNode) (any, error) {
	if n.whole {
		return decodeJSON(b)
	}
	// A bytes.Buffer is parsed in place (b is neither copied nor changed).
	dec := jsontext.NewDecoder(bytes.NewBuffer(b), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	return sparseValue(dec, n)
}

// sparseValue reads the next value of dec as decodeSparse does: nil when
// it is not an object (no path below n matches).
func sparseValue(dec *jsontext.Decoder, n *pathNode) (any, error) {
	if n.whole {
		raw, err := dec.ReadValue()
		if err != nil {
			return nil, err
		}
		return decodeJSON(raw)
	}
	if dec.PeekKind() != '{' {
		return nil, dec.SkipValue()
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, err
	}
	out := make(map[string]any, len(n.children))
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return nil, err
		}
		c, ok := n.children[name.String()]
		if !ok {
			if err := dec.SkipValue(); err != nil {
				return nil, err
			}
			continue
		}
		if out[name.String()], err = sparseValue(dec, c); err != nil {
			return nil, err
		}
	}
	_, err := dec.ReadToken()
	return out, err
}

// tableViews renders what the Table rows of objs show when the client
// asked for no whole object: metadata and the printer columns' values
// only. Other requests, and the core kinds whose cells are computed, get
// whole views (renderAll).
func (h *Handler) tableViews(res *Resource, r *http.Request, objs []engine.Object) ([]map[string]any, error) {
	if !wantsTable(r) || r.URL.Query().Get("includeObject") == "Object" || res.Core != nil || isEvent(res) {
		return h.renderAll(res, objs)
	}
	paths := []string{"metadata"}
	for _, c := range res.Columns {
		paths = append(paths, c.JSONPath)
	}
	tree := pathTree(paths)
	views := make([]map[string]any, len(objs))
	for i, o := range objs {
		v, err := decodeSparse(o.Body, tree)
		if err != nil {
			return nil, fmt.Errorf("stored object %s: %w", o.Key(), err)
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("stored object %s: not a JSON object", o.Key())
		}
		if views[i], err = h.finish(res, o, obj); err != nil {
			return nil, err
		}
	}
	return views, nil
}

// renderRaw is render for encoding only: the top-level fields other than
// metadata stay undecoded (json.RawMessage), so that a watch event of a
// 6 KB Agent costs one scan of its status, not a decode into maps and an
// encode back. Secrets (whose data is opened) are rendered whole.
func (h *Handler) renderRaw(res *Resource, o engine.Object) (map[string]any, error) {
	if res.Group == "" && res.Kind == "Secret" {
		return h.render(res, o)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(o.Body, &top); err != nil {
		return nil, fmt.Errorf("stored object %s: %w", o.Key(), err)
	}
	obj := make(map[string]any, len(top)+2)
	for k, v := range top {
		if k == "metadata" {
			md, err := decodeJSON(v)
			if err != nil {
				return nil, fmt.Errorf("stored object %s: %w", o.Key(), err)
			}
			obj[k] = md
			continue
		}
		obj[k] = v
	}
	return h.finish(res, o, obj)
}
