package kubeapi

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// BenchmarkFieldCheck: the schema check of each document of the seeds'
// ztp.yaml (what one kubectl apply -f sends), per document.
func BenchmarkFieldCheck(b *testing.B) {
	res := resources()
	if err := loadSchemas(res); err != nil {
		b.Fatal(err)
	}
	byKind := map[string]*Resource{}
	for _, r := range res {
		byKind[r.Kind] = r
	}
	text, err := os.ReadFile("../../cmd/rackbootd/testdata/kube/ztp.yaml")
	if err != nil {
		b.Fatal(err)
	}
	type doc struct {
		res *Resource
		obj map[string]any
	}
	var docs []doc
	for _, d := range strings.Split(string(text), "\n---") {
		j, err := yaml.YAMLToJSON([]byte(d))
		if err != nil {
			b.Fatal(err)
		}
		var obj map[string]any
		if json.Unmarshal(j, &obj) != nil || obj == nil {
			continue
		}
		if r := byKind[obj["kind"].(string)]; r != nil {
			docs = append(docs, doc{r, obj})
		}
	}
	w := httptest.NewRecorder()
	r := httptest.NewRequest("POST", "/x?fieldValidation=Strict", nil)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d := docs[i%len(docs)]
		if err := checkFields(w, r, d.res, d.obj, nil); err != nil {
			b.Fatal(err)
		}
	}
}
