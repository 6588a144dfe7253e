package kubeapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
)

// check runs checkFields on a copy of obj for res with a directive and
// returns the error's HTTP code (0: let through) and the Warning headers.
func check(res *Resource, obj map[string]any, directive string) (int, []string) {
	code, warnings, _ := checked(res, obj, directive)
	return code, warnings
}

// checked is check, and the object as checkFields left it (pruned,
// defaulted).
func checked(res *Resource, obj map[string]any, directive string) (int, []string, map[string]any) {
	obj = runtime.DeepCopyJSON(obj)
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodPost, "/x?fieldValidation="+directive, nil)
	err := checkFields(w, r, res, obj, nil)
	var ae *apiError
	if errors.As(err, &ae) {
		return int(ae.status.Code), w.Header().Values("Warning"), obj
	}
	return 0, w.Header().Values("Warning"), obj
}

// Whatever object a client sends, the schema checker of any kind never
// panics and its three directives agree: a value of the wrong type or out
// of its bounds is 422 under all three; otherwise Strict refuses (400)
// exactly when Warn warns, and Ignore lets everything through, pruned of
// what Strict refuses (checked again, the pruned object passes Strict).
func FuzzFieldCheck(f *testing.F) {
	for _, s := range []string{
		`{"metadata":{"name":"a"},"spec":{"pullSecretRef":{"name":"ps"},"proxy":{"httpProxi":"x"}}}`,
		`{"spec":{"networking":{"clusterNetwork":[{"cidr":"10.128.0.0/14","hostPrefix":23}],"serviceNetwork":["172.30.0.0/16"]}}}`,
		`{"spec":{"networking":{"clusterNetwork":[{"cidr":"10.128.0.0/33","hostPrefx":23}]},"apiVIPs":["a","b","c"]}}`,
		`{"spec":{"interfaces":[{"name":"eth0","macAddress":"52:54:00:00:00:01"}],"config":{"any":[1,2]}}}`,
		`{"spec":{"bootMACAddress":"zz","online":"yes","bmc":{"address":1},"rootDeviceHints":{"minSizeGigabytes":-1.5}}}`,
		`{"spec":{"platform":{"agentBareMetal":{"agentSelector":{"matchLabels":{"a":"b"}}},"aws":{"x":1}}}}`,
		`{"data":{"k":"dg=="},"stringData":{"a":"b"},"type":"Opaque","extra":null}`,
		`{"status":{"conditions":[{"type":"x","anything":1}]},"sepc":{}}`,
		`{"metadata":{"label":{},"labels":{"a":"b"}},"spec":[]}`,
	} {
		for i := range resources() {
			f.Add(s, uint8(i))
		}
	}
	res := resources()
	if err := loadSchemas(res); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body string, which uint8) {
		var obj map[string]any
		if json.Unmarshal([]byte(body), &obj) != nil || obj == nil {
			return
		}
		r := res[int(which)%len(res)]
		strict, _ := check(r, obj, validateStrict)
		warn, warnings := check(r, obj, validateWarn)
		ignore, _, pruned := checked(r, obj, validateIgnore)
		switch {
		case ignore == 422:
			if warn != 422 || (strict != 422 && strict != 400) {
				t.Fatalf("%s %s: Ignore 422 but Warn %d, Strict %d", r.Kind, body, warn, strict)
			}
		case ignore != 0:
			t.Fatalf("%s %s: Ignore answered %d", r.Kind, body, ignore)
		case (strict == 400) != (len(warnings) > 0) || warn != 0:
			t.Fatalf("%s %s: Strict %d, Warn %d with %q", r.Kind, body, strict, warn, warnings)
		}
		if again, _ := check(r, pruned, validateStrict); ignore == 0 && again != 0 {
			t.Fatalf("%s %s: pruned by Ignore to %v, which Strict answers %d", r.Kind, body, pruned, again)
		}
	})
}

// Whatever the text, the schema parser returns kinds or an error, never
// panics.
func FuzzParseSchemas(f *testing.F) {
	for _, s := range []string{
		"kind A g/v -- A.\nspec object ! -- S.\n  x []string format=cidr maxItems=2 -- X.\n  y map[integer] -- Y.\n",
		"kind A g/v -- A.\nspec open -- S.\n  p string pattern=^a b$ -- P.\n  e string enum=|a|b default=a -- E.\n",
		"kind A -- A.\n  x string -- X.\n",
		"spec []object -- S.\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		kinds, err := parseSchemas(text)
		if err == nil {
			for _, k := range kinds {
				if _, err := json.Marshal(k.schema); err != nil {
					t.Fatalf("%q: the schema does not marshal: %v", text, err)
				}
			}
		}
	})
}
