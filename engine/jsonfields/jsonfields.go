package jsonfields

import (
	"reflect"
	"sort"
	"strings"
)

// maxName bounds a reported key (a document's keys are not ours).
const maxName = 64

// Unknown lists, as dotted paths sorted, the keys of raw (a decoded JSON
// value: map[string]any, []any, …) that type t has no field for. Maps of
// t (labels, annotations) take any key.
func Unknown(raw any, t reflect.Type) []string {
	var out []string
	walk(raw, t, "", &out)
	sort.Strings(out)
	return out
}

func walk(raw any, t reflect.Type, prefix string, out *[]string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if list, ok := raw.([]any); ok {
			for _, v := range list {
				walk(v, t.Elem(), prefix, out)
			}
		}
		return
	case reflect.Struct:
	default:
		return
	}
	obj, ok := raw.(map[string]any)
	if !ok {
		return
	}
	fields := map[string]reflect.Type{}
	collect(t, fields)
	for k, v := range obj {
		ft, known := fields[k]
		switch {
		case !known:
			*out = append(*out, prefix+clip(k))
		case v != nil:
			walk(v, ft, prefix+k+".", out)
		}
	}
}

func collect(t reflect.Type, into map[string]reflect.Type) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				collect(ft, into)
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		if name != "-" {
			into[name] = f.Type
		}
	}
}

func clip(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
	if r := []rune(s); len(r) > maxName {
		return string(r[:maxName]) + "…"
	}
	return s
}
