package kubeapi

import (
	"encoding/base64"
	"fmt"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rackboot/rackboot/engine"
)

// sealName binds a Secret's sealed values to its namespace and name.
func sealName(ns, name string) string {
	return engine.ObjectRef{Kind: "Secret", Namespace: ns, Name: name}.SealName()
}

// sealSecret checks a Secret being written (data base64, stringData merged
// into data, the keys its type needs) and seals every value.
func (h *Handler) sealSecret(res *Resource, ns, name string, obj map[string]any) *apiError {
	data := map[string][]byte{}
	raw, _ := obj["data"].(map[string]any)
	if obj["data"] != nil && raw == nil {
		return errInvalid(res, name, cause{"data", "must be an object of base64 strings", metav1.CauseTypeFieldValueInvalid})
	}
	for k, v := range raw {
		s, ok := v.(string)
		b, err := base64.StdEncoding.DecodeString(s)
		if !ok || err != nil {
			return errInvalid(res, name, cause{"data[" + k + "]", "must be a base64 string", metav1.CauseTypeFieldValueInvalid})
		}
		data[k] = b
	}
	sd, _ := obj["stringData"].(map[string]any)
	for k, v := range sd {
		s, ok := v.(string)
		if !ok {
			return errInvalid(res, name, cause{"stringData[" + k + "]", "must be a string", metav1.CauseTypeFieldValueInvalid})
		}
		data[k] = []byte(s)
	}
	delete(obj, "stringData")
	typ, _ := obj["type"].(string)
	if typ == "" {
		typ = "Opaque"
		obj["type"] = typ
	}
	for _, need := range requiredKeys[typ] {
		if _, ok := data[need]; !ok {
			return errInvalid(res, name, cause{"data[" + need + "]", "Required value", metav1.CauseTypeFieldValueRequired})
		}
	}
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	sealed := map[string]any{}
	for _, k := range keys {
		b, err := h.opts.Sealer.Seal(sealName(ns, name), k, data[k])
		if err != nil {
			return storeError(res, name, err)
		}
		sealed[k] = base64.StdEncoding.EncodeToString(b)
	}
	if len(sealed) > 0 {
		obj["data"] = sealed
	} else {
		delete(obj, "data")
	}
	return nil
}

// requiredKeys are the data keys a Secret type needs (upstream's).
var requiredKeys = map[string][]string{
	"kubernetes.io/dockerconfigjson": {".dockerconfigjson"},
	"kubernetes.io/dockercfg":        {".dockercfg"},
	"kubernetes.io/basic-auth":       nil,
	"kubernetes.io/tls":              {"tls.crt", "tls.key"},
}

// openSecret replaces the sealed values of a served Secret by theirs.
func (h *Handler) openSecret(o engine.Object, obj map[string]any) error {
	raw, _ := obj["data"].(map[string]any)
	for k, v := range raw {
		s, _ := v.(string)
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return fmt.Errorf("secret %s: data key %s: %w", o.Key(), k, err)
		}
		plain, err := h.opts.Sealer.Open(sealName(o.Namespace, o.Name), k, b)
		if err != nil {
			return fmt.Errorf("secret %s: %w", o.Key(), err)
		}
		raw[k] = base64.StdEncoding.EncodeToString(plain)
	}
	return nil
}

// dataCount is the number of data entries of a Secret or ConfigMap.
func dataCount(obj map[string]any) int {
	n := 0
	for _, f := range []string{"data", "binaryData"} {
		if m, ok := obj[f].(map[string]any); ok {
			n += len(m)
		}
	}
	return n
}
