package vendorbmc

import (
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"path"
	"sort"
	"strings"
	"sync"
)

//go:embed mockups
var mockups embed.FS

// Credentials every BMC of this package accepts (HTTP Basic).
const (
	User     = "root"
	Password = "calvin-S3cret!pw"
)

// BMC is one vendor's Redfish service. It is an http.Handler, safe for
// concurrent use.
type BMC struct {
	vendor string
	p      personality

	mu      sync.Mutex
	docs    map[string]map[string]any
	log     []string
	boots   []string
	pending map[string]pendingMedia // slot path → update not yet shown
	// oemBootCD: the iDRAC was told to boot the virtual CD once (OEM).
	oemBootCD bool
	// Override, when set, answers instead of the resources (error tests);
	// it returns false to let the BMC answer.
	Override func(w http.ResponseWriter, r *http.Request) bool
}

// Vendors lists the mockups, sorted.
func Vendors() []string {
	entries, _ := fs.ReadDir(mockups, "mockups")
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

// New loads vendor's mockup.
func New(vendor string) (*BMC, error) {
	m := &BMC{vendor: vendor, docs: map[string]map[string]any{}, p: personalityOf(vendor),
		pending: map[string]pendingMedia{}}
	root := "mockups/" + vendor
	err := fs.WalkDir(mockups, root, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || e.Name() != "index.json" {
			return err
		}
		b, err := mockups.ReadFile(p)
		if err != nil {
			return err
		}
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		m.docs[strings.TrimPrefix(path.Dir(p), root)] = doc
		return nil
	})
	if err != nil || len(m.docs) == 0 {
		return nil, fmt.Errorf("vendorbmc: loading mockup %s: %v (%d resources)", vendor, err, len(m.docs))
	}
	return m, nil
}

// Vendor is the mockup's name.
func (m *BMC) Vendor() string { return m.vendor }

func (m *BMC) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	p := strings.TrimSuffix(r.URL.Path, "/")
	m.mu.Lock()
	defer m.mu.Unlock()
	m.log = append(m.log, fmt.Sprintf("%s %s%s%s", r.Method, r.URL.Path, authTag(r), bodyTag(body)))
	status := m.serve(w, r, p, body)
	m.log[len(m.log)-1] += fmt.Sprintf(" -> %d", status)
}

func authTag(r *http.Request) string {
	if u, p, ok := r.BasicAuth(); ok && u == User && p == Password {
		return ""
	} else if ok {
		return " [wrong credentials]"
	}
	return " [no auth]"
}

// bodyTag is the request body re-encoded with sorted keys (or raw if it is
// not JSON), so recorded requests are stable.
func bodyTag(b []byte) string {
	if len(b) == 0 {
		return " (no body)"
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return " " + string(b)
	}
	out, _ := json.Marshal(v)
	return " " + string(out)
}

func (m *BMC) serve(w http.ResponseWriter, r *http.Request, p string, body []byte) int {
	if m.Override != nil && m.Override(w, r) {
		return -1
	}
	u, pw, ok := r.BasicAuth()
	if p != "/redfish/v1" && (!ok || u != User || pw != Password) {
		return redfishError(w, http.StatusUnauthorized, "Base.1.8.NoValidSession", "There is no valid session established with the implementation.")
	}
	var req map[string]any
	if len(body) > 0 && json.Unmarshal(body, &req) != nil {
		return redfishError(w, http.StatusBadRequest, "Base.1.8.MalformedJSON", "The request body submitted was malformed JSON.")
	}
	if code, msg := m.p.refuse(r.Method, p, req); code != 0 {
		return redfishError(w, code, "Base.1.8.ActionParameterUnknown", msg)
	}
	switch r.Method {
	case http.MethodGet:
		doc, ok := m.docs[p]
		if !ok {
			return redfishError(w, http.StatusNotFound, "Base.1.8.ResourceMissingAtURI", "The resource at the URI "+p+" was not found.")
		}
		m.settle(p)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(m.p.present(doc))
		return http.StatusOK
	case http.MethodPatch:
		return m.patch(w, p, req)
	case http.MethodPost:
		return m.action(w, p, req)
	}
	return redfishError(w, http.StatusMethodNotAllowed, "Base.1.8.OperationNotAllowed", "method not allowed")
}

func (m *BMC) patch(w http.ResponseWriter, p string, req map[string]any) int {
	doc, ok := m.docs[p]
	if !ok {
		return redfishError(w, http.StatusMethodNotAllowed, "Base.1.8.OperationNotAllowed", "PATCH not allowed")
	}
	if _, isMedia := doc["MediaTypes"]; isMedia && m.p.mediaDelay > 0 {
		m.delay(p, req)
	} else {
		merge(doc, req)
	}
	w.WriteHeader(http.StatusNoContent)
	return http.StatusNoContent
}

// merge applies a PATCH body (one level deep for objects such as Boot).
func merge(doc, patch map[string]any) {
	for k, v := range patch {
		sub, isObj := v.(map[string]any)
		cur, curObj := doc[k].(map[string]any)
		if isObj && curObj {
			for sk, sv := range sub {
				cur[sk] = sv
			}
			continue
		}
		if v == nil {
			v = ""
		}
		doc[k] = v
	}
}

func redfishError(w http.ResponseWriter, code int, id, msg string) int {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"code": id, "message": "An error occurred.",
		"@Message.ExtendedInfo": []any{map[string]any{"MessageId": id, "Message": msg, "Severity": "Warning"}},
	}})
	return code
}

// Requests returns and clears the recorded requests ("METHOD path body ->
// status").
func (m *BMC) Requests() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := m.log
	m.log = nil
	return out
}

// Boots returns what the machine booted so far, in order.
func (m *BMC) Boots() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.boots...)
}

// Doc returns a copy of one resource's current state (nil if absent).
func (m *BMC) Doc(p string) map[string]any {
	m.mu.Lock()
	defer m.mu.Unlock()
	return clone(m.docs[p])
}

// SetDoc sets one property of a resource.
func (m *BMC) SetDoc(p, key string, v any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.docs[p][key] = v
}

// PutDoc replaces (or adds) a resource.
func (m *BMC) PutDoc(p string, doc map[string]any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.docs[p] = clone(doc)
}

// Paths lists the resources' paths, sorted.
func (m *BMC) Paths() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, 0, len(m.docs))
	for p := range m.docs {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func clone(doc map[string]any) map[string]any {
	if doc == nil {
		return nil
	}
	b, _ := json.Marshal(doc)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}
