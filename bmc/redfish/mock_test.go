package redfish_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/rackboot/rackboot/testbed/vendorbmc"
)

const (
	testUser = vendorbmc.User
	testPass = vendorbmc.Password
)

// mockBMC is a vendor's BMC (testbed/vendorbmc: the vendor's recorded
// Redfish tree and its behaviour) with the short names the tests use.
type mockBMC struct {
	*vendorbmc.BMC
}

func newMockBMC(t testing.TB, vendor string) *mockBMC {
	t.Helper()
	m, err := vendorbmc.New(vendor)
	if err != nil {
		t.Fatal(err)
	}
	return &mockBMC{m}
}

// requests returns and clears the recorded requests.
func (m *mockBMC) requests() []string { return m.Requests() }

// doc returns a copy of one resource's current state.
func (m *mockBMC) doc(p string) map[string]any { return m.Doc(p) }

func (m *mockBMC) setDoc(p, key string, v any) { m.SetDoc(p, key, v) }

func vendors(testing.TB) []string { return vendorbmc.Vendors() }

func start(t testing.TB, m *mockBMC) *httptest.Server {
	srv := httptest.NewServer(m)
	t.Cleanup(srv.Close)
	return srv
}

// cdPath is the first slot that takes a CD.
func cdPath(m *mockBMC) string {
	var paths []string
	for _, p := range m.Paths() {
		types, _ := m.doc(p)["MediaTypes"].([]any)
		if slices.Contains(types, any("CD")) {
			paths = append(paths, p)
		}
	}
	return paths[0]
}

// redfishError answers with a Redfish error body.
func redfishError(w http.ResponseWriter, code int, id, msg string) int {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"code": id, "message": "An error occurred.",
		"@Message.ExtendedInfo": []any{map[string]any{"MessageId": id, "Message": msg, "Severity": "Warning"}},
	}})
	return code
}
