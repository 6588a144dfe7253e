package redfish_test

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

const (
	testUser = "root"
	testPass = "calvin-S3cret!pw"
)

// mockBMC serves a vendor's recorded Redfish resources from
// testdata/<vendor>/ (DMTF mockup layout: one index.json per resource),
// acts on PATCH and on the Reset, InsertMedia and EjectMedia actions, plays
// the vendor's quirks, and records every request it gets.
type mockBMC struct {
	vendor string
	quirk  func(method, path string, body map[string]any) (int, string)

	mu   sync.Mutex
	docs map[string]map[string]any
	log  []string
	// override, when set, answers instead of the resources (error tests).
	override func(w http.ResponseWriter, r *http.Request) bool
}

func newMockBMC(t testing.TB, vendor string) *mockBMC {
	t.Helper()
	m := &mockBMC{vendor: vendor, docs: map[string]map[string]any{}, quirk: quirksFor(vendor)}
	root := filepath.Join("testdata", vendor)
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || e.Name() != "index.json" {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		m.docs["/"+filepath.ToSlash(rel)] = doc
		return nil
	})
	if err != nil || len(m.docs) == 0 {
		t.Fatalf("loading mockup %s: %v (%d resources)", vendor, err, len(m.docs))
	}
	return m
}

func (m *mockBMC) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	p := strings.TrimSuffix(r.URL.Path, "/")
	m.mu.Lock()
	defer m.mu.Unlock()
	m.log = append(m.log, fmt.Sprintf("%s %s%s%s", r.Method, r.URL.Path, authTag(r), bodyTag(body)))
	status := m.serve(w, r, p, body)
	m.log[len(m.log)-1] += fmt.Sprintf(" -> %d", status)
}

func authTag(r *http.Request) string {
	if u, p, ok := r.BasicAuth(); ok && u == testUser && p == testPass {
		return ""
	} else if ok {
		return " [wrong credentials]"
	}
	return " [no auth]"
}

// bodyTag is the request body re-encoded with sorted keys (or raw if it is
// not JSON), so golden files are stable.
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

func (m *mockBMC) serve(w http.ResponseWriter, r *http.Request, p string, body []byte) int {
	if m.override != nil && m.override(w, r) {
		return -1
	}
	u, pw, ok := r.BasicAuth()
	if p != "/redfish/v1" && (!ok || u != testUser || pw != testPass) {
		return redfishError(w, http.StatusUnauthorized, "Base.1.8.NoValidSession", "There is no valid session established with the implementation.")
	}
	var req map[string]any
	if len(body) > 0 && json.Unmarshal(body, &req) != nil {
		return redfishError(w, http.StatusBadRequest, "Base.1.8.MalformedJSON", "The request body submitted was malformed JSON.")
	}
	if code, msg := m.quirk(r.Method, p, req); code != 0 {
		return redfishError(w, code, "Base.1.8.ActionParameterUnknown", msg)
	}
	switch r.Method {
	case http.MethodGet:
		doc, ok := m.docs[p]
		if !ok {
			return redfishError(w, http.StatusNotFound, "Base.1.8.ResourceMissingAtURI", "The resource at the URI "+p+" was not found.")
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(doc)
		return http.StatusOK
	case http.MethodPatch:
		doc, ok := m.docs[p]
		if !ok {
			return redfishError(w, http.StatusMethodNotAllowed, "Base.1.8.OperationNotAllowed", "PATCH not allowed")
		}
		merge(doc, req)
		w.WriteHeader(http.StatusNoContent)
		return http.StatusNoContent
	case http.MethodPost:
		return m.action(w, p, req)
	}
	return redfishError(w, http.StatusMethodNotAllowed, "Base.1.8.OperationNotAllowed", "method not allowed")
}

// action carries out the Reset, InsertMedia and EjectMedia actions.
func (m *mockBMC) action(w http.ResponseWriter, p string, req map[string]any) int {
	res, act, _ := strings.Cut(p, "/Actions/")
	doc, ok := m.docs[res]
	if !ok {
		return redfishError(w, http.StatusNotFound, "Base.1.8.ResourceMissingAtURI", "no such action")
	}
	switch act {
	case "ComputerSystem.Reset":
		if req["ResetType"] == "On" && doc["PowerState"] == "On" {
			return redfishError(w, http.StatusConflict, "IDRAC.2.8.PSU501", "Unable to perform the operation because the server is already powered on.")
		}
		switch req["ResetType"] {
		case "On", "ForceOn", "ForceRestart", "PowerCycle", "GracefulRestart":
			doc["PowerState"] = "On"
		case "ForceOff", "GracefulShutdown":
			doc["PowerState"] = "Off"
		default:
			return redfishError(w, http.StatusBadRequest, "Base.1.8.ActionParameterValueNotInList", fmt.Sprintf("bad ResetType %v", req["ResetType"]))
		}
	case "VirtualMedia.InsertMedia":
		img, _ := req["Image"].(string)
		if img == "" {
			return redfishError(w, http.StatusBadRequest, "Base.1.8.ActionParameterMissing", "Image is required")
		}
		doc["Image"], doc["ImageName"] = img, path.Base(img)
		doc["Inserted"] = m.vendor != "supermicro-x12"
		if v, ok := req["Inserted"]; ok {
			doc["Inserted"] = v
		}
		doc["ConnectedVia"] = "URI"
	case "VirtualMedia.EjectMedia":
		doc["Image"], doc["ImageName"], doc["Inserted"], doc["ConnectedVia"] = "", "", false, "NotConnected"
	default:
		return redfishError(w, http.StatusNotFound, "Base.1.8.ActionNotSupported", "unknown action "+act)
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

// requests returns and clears the recorded requests.
func (m *mockBMC) requests() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := m.log
	m.log = nil
	return out
}

// doc returns a copy of one resource's current state.
func (m *mockBMC) doc(p string) map[string]any {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, _ := json.Marshal(m.docs[p])
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

func (m *mockBMC) setDoc(p, key string, v any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.docs[p][key] = v
}

func vendors(t testing.TB) []string {
	entries, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && e.Name() != "golden" && e.Name() != "fuzz" {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

func start(t testing.TB, m *mockBMC) *httptest.Server {
	srv := httptest.NewServer(m)
	t.Cleanup(srv.Close)
	return srv
}
