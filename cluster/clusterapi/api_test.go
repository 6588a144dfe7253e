package clusterapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/cluster"
	"github.com/rackboot/rackboot/engine"
)

// fixedCluster answers with fixed values and records changes.
type fixedCluster struct {
	err     error
	added   []cluster.Peer
	removed []string
}

func (f *fixedCluster) Status(context.Context) (cluster.Status, error) {
	return cluster.Status{Node: "n1", Leader: "n1", Members: []cluster.Member{{ID: "n1"}}}, nil
}

func (f *fixedCluster) AddMember(_ context.Context, p cluster.Peer) error {
	f.added = append(f.added, p)
	return f.err
}

func (f *fixedCluster) RemoveMember(_ context.Context, id string) error {
	f.removed = append(f.removed, id)
	return f.err
}

func do(t *testing.T, h http.Handler, method, path, body string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, strings.NewReader(body)))
	return rec.Code, rec.Body.String()
}

func TestRoutes(t *testing.T) {
	f := &fixedCluster{}
	h := New(f, nil)
	code, body := do(t, h, "GET", Path, "")
	var st cluster.Status
	if code != 200 || json.Unmarshal([]byte(body), &st) != nil || st.Leader != "n1" {
		t.Errorf("status: %d %s", code, body)
	}
	if code, _ = do(t, h, "POST", Path+"/members", `{"id":"n4","address":"10.0.0.4:8300"}`); code != 200 || f.added[0] != (cluster.Peer{ID: "n4", Addr: "10.0.0.4:8300"}) {
		t.Errorf("add: %d %v", code, f.added)
	}
	if code, _ = do(t, h, "DELETE", Path+"/members/n2", ""); code != 200 || f.removed[0] != "n2" {
		t.Errorf("remove: %d %v", code, f.removed)
	}
	for _, body := range []string{`{"id":"n4","addr":"x"}`, `not json`, strings.Repeat("x", maxBody+1)} {
		if code, _ := do(t, h, "POST", Path+"/members", body); code != 400 {
			t.Errorf("body %.20q: %d, want 400", body, code)
		}
	}
	if code, _ := do(t, h, "PUT", Path, ""); code != http.StatusMethodNotAllowed {
		t.Errorf("PUT: %d", code)
	}
}

func TestErrorStatus(t *testing.T) {
	for err, want := range map[error]int{
		fmt.Errorf("%w: %w: x", cluster.ErrRefused, engine.ErrNotFound): 404,
		fmt.Errorf("%w: %w: x", cluster.ErrRefused, engine.ErrInvalid):  400,
		fmt.Errorf("%w: x", cluster.ErrRefused):                         409,
		fmt.Errorf("%w: no leader", engine.ErrNotLeader):                503,
		fmt.Errorf("disk on fire"):                                      500,
	} {
		f := &fixedCluster{err: err}
		code, body := do(t, New(f, nil), "DELETE", Path+"/members/n2", "")
		var e Error
		if code != want || json.Unmarshal([]byte(body), &e) != nil || e.Code != fmt.Sprint(want) || e.Reason != err.Error() {
			t.Errorf("%v: %d %s, want %d", err, code, body, want)
		}
	}
}
