package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"sort"
	"strings"
)

// decodeWarn decodes like decode and reports every field of the body that
// v has no place for as an HTTP Warning header (299, as the Kubernetes API
// server warns about unknown fields): a metal3 manifest carries fields
// rackboot does not use (image, userData, …), which are stored nowhere and
// must not be dropped silently.
func decodeWarn(w http.ResponseWriter, r *http.Request, limit int64, v any) error {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)
		}
		return badRequest("reading body: %v", err)
	}
	if err := decodeBytes(data, v); err != nil {
		return err
	}
	var raw any
	if json.Unmarshal(data, &raw) == nil {
		for _, f := range unknownFields(raw, reflect.TypeOf(v), "") {
			w.Header().Add("Warning", fmt.Sprintf("299 - %q", "unknown field "+f+" (ignored by rackboot)"))
		}
	}
	return nil
}

// unknownFields lists the keys of the JSON object raw that the struct t
// (through pointers and embedded structs) has no field for, as dotted paths.
func unknownFields(raw any, t reflect.Type, prefix string) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	obj, ok := raw.(map[string]any)
	if !ok || t.Kind() != reflect.Struct {
		return nil
	}
	fields := map[string]reflect.Type{}
	collectFields(t, fields)
	var out []string
	for k, v := range obj {
		ft, known := fields[k]
		switch {
		case !known:
			out = append(out, prefix+clip(k))
		case v != nil:
			out = append(out, unknownFields(v, ft, prefix+k+".")...)
		}
	}
	sort.Strings(out)
	return out
}

func collectFields(t reflect.Type, into map[string]reflect.Type) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			collectFields(ft, into)
			continue
		}
		if name == "" {
			name = f.Name
		}
		if name != "-" {
			into[name] = f.Type
		}
	}
}
