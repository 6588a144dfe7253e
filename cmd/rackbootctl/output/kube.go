package output

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/jsonpath"
)

// KubeTable is the server's Table as kubectl prints it: the columns of
// priority 0 (wide: all), upper-case headers, a NAMESPACE column first
// when namespace is set, and <none> for an empty cell.
func KubeTable(t *metav1.Table, wide, namespace bool) Table {
	var keep []int
	var out Table
	if namespace {
		out.Header = append(out.Header, "NAMESPACE")
	}
	for i, c := range t.ColumnDefinitions {
		if c.Priority == 0 || wide {
			keep = append(keep, i)
			out.Header = append(out.Header, strings.ToUpper(c.Name))
		}
	}
	for _, r := range t.Rows {
		var row []string
		var meta metav1.PartialObjectMetadata
		_ = json.Unmarshal(r.Object.Raw, &meta)
		if namespace {
			row = append(row, meta.Namespace)
		}
		for _, i := range keep {
			row = append(row, kubeCell(r.Cells, i))
		}
		out.Rows = append(out.Rows, row)
		out.Keys = append(out.Keys, meta.Namespace+"/"+meta.Name)
	}
	return out
}

// kubeCell is one cell of a server Table as text.
func kubeCell(cells []any, i int) string {
	if i >= len(cells) || cells[i] == nil {
		return "<none>"
	}
	switch v := cells[i].(type) {
	case string:
		return v
	case float64:
		if v == float64(int64(v)) {
			return fmt.Sprint(int64(v))
		}
	}
	return fmt.Sprint(cells[i])
}

// WriteJSONPath prints v (decoded JSON) through a kubectl jsonpath
// template such as {.status.conditions[*].type} (the braces may be left
// out, as kubectl allows); missing keys print nothing.
func WriteJSONPath(w io.Writer, tmpl string, v any) error {
	if !strings.Contains(tmpl, "{") {
		tmpl = "{" + tmpl + "}"
	}
	jp := jsonpath.New("out").AllowMissingKeys(true)
	if err := jp.Parse(tmpl); err != nil {
		return fmt.Errorf("%w: jsonpath %q: %w", ErrFormat, tmpl, err)
	}
	if err := jp.Execute(w, v); err != nil {
		return fmt.Errorf("jsonpath %q: %w", tmpl, err)
	}
	return nil
}
