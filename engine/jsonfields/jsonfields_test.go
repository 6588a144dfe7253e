package jsonfields_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/rackboot/rackboot/engine/jsonfields"
)

type inner struct {
	A string `json:"a"`
}

type base struct {
	Kind string `json:"kind"`
}

type doc struct {
	base
	Name   string            `json:"name,omitempty"`
	Labels map[string]string `json:"labels"`
	In     *inner            `json:"in"`
	List   []inner           `json:"list"`
	Skip   string            `json:"-"`
}

func TestUnknown(t *testing.T) {
	var raw any
	if err := json.Unmarshal([]byte(`{"kind":"x","name":"n","labels":{"any":"key"},"in":{"a":"1","b":2},
		"list":[{"a":"1"},{"c":3}],"Skip":"1","extra":{"deep":1}}`), &raw); err != nil {
		t.Fatal(err)
	}
	got := jsonfields.Unknown(raw, reflect.TypeOf(doc{}))
	want := []string{"Skip", "extra", "in.b", "list.c"}
	if !slices.Equal(got, want) {
		t.Errorf("Unknown = %q, want %q", got, want)
	}
	if got := jsonfields.Unknown("not an object", reflect.TypeOf(doc{})); len(got) != 0 {
		t.Errorf("Unknown of a string = %q", got)
	}
}
