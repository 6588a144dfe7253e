package kubeapi

import (
	kjson "sigs.k8s.io/json"
)

// duplicateFields lists the fields a JSON document sets more than once,
// as kube-apiserver's strict decoding words them (duplicate field
// "spec.role", the last value being the one kept): refused under
// fieldValidation=Strict, a Warning under Warn. A document that does not
// parse lists none (its decoding answers for it).
func duplicateFields(b []byte) []string {
	var v any
	strict, err := kjson.UnmarshalStrict(b, &v, kjson.DisallowDuplicateFields)
	if err != nil {
		return nil
	}
	out := make([]string, len(strict))
	for i, e := range strict {
		out[i] = e.Error()
	}
	return out
}
