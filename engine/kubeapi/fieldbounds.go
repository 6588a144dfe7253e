package kubeapi

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"regexp"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
)

// checkString checks a string against its schema's format, pattern and
// maxLength, worded as kube-apiserver's CRD validation words them. The
// formats checked are the ones rackboot's schemas use to refuse addresses
// the controllers could not use: cidr (an IPv4 or IPv6 network, as
// net.ParseCIDR takes it), mac (as net.ParseMAC takes it), ip (an address)
// and ip-or-cidr (either, as nmstate takes a route's destination), and
// date-time and byte as kube-apiserver checks them in a custom resource
// (k8s.io/kube-openapi's strfmt.Default: RFC 3339, standard base64; the
// v1 kinds' byte fields are Go []byte there, refused when decoded:
// decodeBytes); int64 and int32 are described only.
func checkString(s map[string]any, v, path string) []cause {
	var out []cause
	invalid := func(msg string) {
		out = append(out, cause{field: path, typ: metav1.CauseTypeFieldValueInvalid,
			msg: fmt.Sprintf("Invalid value: %s: %s", strconv.Quote(v), msg)})
	}
	if f, _ := s["format"].(string); !formatOK(f, v) {
		invalid(fmt.Sprintf("%s in body must be of type %s: %s", path, f, strconv.Quote(v)))
	}
	if p, _ := s["pattern"].(string); p != "" {
		// A pattern that does not compile was a mistake of the schema
		// files (TestSchemasWellFormed compiles them all): not the
		// client's.
		if re, err := regexp.Compile(p); err == nil && !re.MatchString(v) {
			invalid(fmt.Sprintf("%s in body should match '%s'", path, p))
		}
	}
	if max, ok := s["maxLength"].(int64); ok && int64(len(v)) > max {
		out = append(out, cause{field: path, typ: metav1.CauseType("FieldValueTooLong"),
			msg: fmt.Sprintf("Too long: may not be more than %d bytes", max)})
	}
	return out
}

// formatOK reports whether v is of format f (true for formats not
// checked, and for "", which leaves the field unset).
func formatOK(f, v string) bool {
	if v == "" {
		return true
	}
	switch f {
	case "cidr":
		_, _, err := net.ParseCIDR(v)
		return err == nil
	case "mac":
		_, err := net.ParseMAC(v)
		return err == nil
	case "ip":
		_, err := netip.ParseAddr(v)
		return err == nil
	case "ip-or-cidr":
		_, perr := netip.ParsePrefix(v)
		_, aerr := netip.ParseAddr(v)
		return perr == nil || aerr == nil
	case "date-time", "byte":
		return strfmt.Default.Validates(f, v)
	}
	return true
}

// checkNumber checks a number against its schema's minimum and maximum.
func checkNumber(s map[string]any, v any, path string) []cause {
	var f float64
	switch v := v.(type) {
	case float64:
		f = v
	case json.Number:
		var err error
		if f, err = v.Float64(); err != nil {
			return nil
		}
	}
	var out []cause
	shown := strconv.FormatFloat(f, 'f', -1, 64)
	if min, ok := s["minimum"].(int64); ok && f < float64(min) {
		out = append(out, cause{field: path, typ: metav1.CauseTypeFieldValueInvalid,
			msg: fmt.Sprintf("Invalid value: %s: %s in body should be greater than or equal to %d", shown, path, min)})
	}
	if max, ok := s["maximum"].(int64); ok && f > float64(max) {
		out = append(out, cause{field: path, typ: metav1.CauseTypeFieldValueInvalid,
			msg: fmt.Sprintf("Invalid value: %s: %s in body should be less than or equal to %d", shown, path, max)})
	}
	return out
}

// checkItems checks a list's length against minItems and maxItems.
func checkItems(s map[string]any, n int, path string) []cause {
	var out []cause
	if min, ok := s["minItems"].(int64); ok && int64(n) < min {
		out = append(out, cause{field: path, typ: metav1.CauseTypeFieldValueInvalid,
			msg: fmt.Sprintf("Invalid value: %d: %s in body should have at least %d items", n, path, min)})
	}
	if max, ok := s["maxItems"].(int64); ok && int64(n) > max {
		out = append(out, cause{field: path, typ: metav1.CauseType("FieldValueTooMany"),
			msg: fmt.Sprintf("Too many: %d: must have at most %d items", n, max)})
	}
	return out
}

// decodeV1 refuses a v1 kind's value that kube-apiserver's decoding into
// k8s.io/api's Go type refuses before any other check, 400 in its words:
// a byte field (Secret data, ConfigMap binaryData) that is not standard
// base64 (`Secret in version "v1" cannot be handled as a Secret: illegal
// base64 data at input byte 4`), a time (metav1.Time, MicroTime: an
// Event's timestamps, a Namespace condition's lastTransitionTime) that
// is not RFC 3339. A value of the wrong type is left to the schema check.
// (kube-apiserver answers a patch that makes such a value 422 on "patch",
// quoting the whole patched object, a Secret's data too: not here.)
func decodeV1(res *Resource, obj map[string]any) error {
	typed := strategicStruct(res)
	if typed == nil {
		return nil
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	err = json.Unmarshal(b, typed)
	var te *time.ParseError
	var be base64.CorruptInputError
	if errors.As(err, &te) || errors.As(err, &be) {
		return errBadRequest("%s in version %q cannot be handled as a %s: %v", res.Kind, res.Version, res.Kind, err)
	}
	return nil
}
