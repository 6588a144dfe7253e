package kubeapi

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/rackboot/rackboot/engine"
)

// wantsTable reports whether the client asked for the Table form (kubectl
// get sends `application/json;as=Table;v=v1;g=meta.k8s.io` first).
func wantsTable(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		if strings.Contains(part, "as=Table") && strings.Contains(part, "g=meta.k8s.io") && strings.Contains(part, "v=v1") &&
			!strings.Contains(part, "v=v1beta1") {
			return true
		}
	}
	return false
}

// table is the Table form of objs: Name, the kind's printer columns
// (Age as the API server renders it, a duration) and each row's object as
// PartialObjectMetadata (includeObject=Object: the whole object).
func (h *Handler) table(res *Resource, r *http.Request, objs []engine.Object, views []map[string]any, rev uint64) map[string]any {
	cols := []map[string]any{{"name": "Name", "type": "string", "format": "name",
		"description": "Name must be unique within a namespace.", "priority": 0}}
	for _, c := range res.Columns {
		cols = append(cols, map[string]any{"name": c.Name, "type": c.Type, "format": "", "description": c.Description, "priority": c.Priority})
	}
	now := h.opts.Now()
	full := r.URL.Query().Get("includeObject") == "Object"
	none := r.URL.Query().Get("includeObject") == "None"
	rows := make([]any, 0, len(views))
	for i, v := range views {
		cells := []any{objs[i].Name}
		if res.Core != nil {
			cells = append(cells, res.Core(v)...)
			cells = append(cells, age(objs[i].CreatedAt, now))
		} else {
			for _, c := range res.Columns {
				cells = append(cells, cell(c, v, now))
			}
		}
		row := map[string]any{"cells": cells}
		switch {
		case full:
			row["object"] = v
		case !none:
			row["object"] = map[string]any{"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": v["metadata"]}
		}
		rows = append(rows, row)
	}
	return map[string]any{
		"kind": "Table", "apiVersion": "meta.k8s.io/v1",
		"metadata":          map[string]any{"resourceVersion": strconv.FormatUint(rev, 10)},
		"columnDefinitions": cols, "rows": rows,
	}
}

func age(t, now time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(now.Sub(t))
}

// cell is one printer column's value in v.
func cell(c Column, v map[string]any, now time.Time) any {
	x, ok := lookupPath(v, c.JSONPath)
	if !ok {
		return nil
	}
	if c.Type == "date" {
		if s, ok := x.(string); ok {
			if t, err := time.Parse(time.RFC3339, s); err == nil {
				return age(t, now)
			}
		}
	}
	return x
}

// lookupPath evaluates the JSONPath subset the printer columns use:
// .field.field (a `\.` inside a name), and [?(@.key=='value')] filters on
// arrays. The first match wins.
func lookupPath(v any, path string) (any, bool) {
	for _, step := range splitPath(path) {
		if strings.HasPrefix(step, "[?(@.") {
			key, want, ok := parseFilter(step)
			arr, isArr := v.([]any)
			if !ok || !isArr {
				return nil, false
			}
			found := false
			for _, e := range arr {
				if m, _ := e.(map[string]any); m != nil && m[key] == want {
					v, found = e, true
					break
				}
			}
			if !found {
				return nil, false
			}
			continue
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[step]; !ok {
			return nil, false
		}
	}
	return v, true
}

func splitPath(path string) []string {
	var steps []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			steps = append(steps, cur.String())
			cur.Reset()
		}
	}
	for i := 0; i < len(path); i++ {
		switch c := path[i]; {
		case c == '\\' && i+1 < len(path):
			i++
			cur.WriteByte(path[i])
		case c == '.':
			flush()
		case c == '[':
			flush()
			end := strings.IndexByte(path[i:], ']')
			if end < 0 {
				end = len(path) - i - 1
			}
			steps = append(steps, path[i:i+end+1])
			i += end
		default:
			cur.WriteByte(c)
		}
	}
	flush()
	return steps
}

// parseFilter reads [?(@.key=='value')] (or "value").
func parseFilter(step string) (key, value string, ok bool) {
	s := strings.TrimSuffix(strings.TrimPrefix(step, "[?(@."), ")]")
	key, value, ok = strings.Cut(s, "==")
	value = strings.Trim(value, `'"`)
	return key, value, ok
}

func namespaceCells(obj map[string]any) []any {
	st, _ := obj["status"].(map[string]any)
	return []any{st["phase"]}
}

func secretCells(obj map[string]any) []any {
	return []any{obj["type"], int64(dataCount(obj))}
}

func configMapCells(obj map[string]any) []any { return []any{int64(dataCount(obj))} }
