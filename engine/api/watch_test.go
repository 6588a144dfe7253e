package api

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/enginetest"
	"github.com/rackboot/rackboot/engine/models"
)

// stallingStore hands its first subscriber a feed the test controls (it
// never carries a change), as if that subscriber had fallen behind.
type stallingStore struct {
	engine.Store
	mu      sync.Mutex
	stalled chan engine.Change
	used    bool
}

func (s *stallingStore) Subscribe(ctx context.Context) <-chan engine.Change {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.used && s.stalled != nil {
		s.used = true
		return s.stalled
	}
	return s.Store.Subscribe(ctx)
}

// watch opens a host watch stream and returns its events.
func (e *env) watch(ctx context.Context, ieID, query string) <-chan models.WatchEvent {
	e.t.Helper()
	req, err := http.NewRequestWithContext(ctx, "GET", e.srv.URL+BasePath+"/infra-envs/"+ieID+"/hosts?watch=true"+query, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testAdmin)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/x-ndjson" {
		b, _ := io.ReadAll(res.Body)
		e.t.Fatalf("watch: %d %s %s", res.StatusCode, res.Header.Get("Content-Type"), b)
	}
	out := make(chan models.WatchEvent, 100)
	go func() {
		defer close(out)
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(nil, 1<<22)
		for sc.Scan() {
			var ev models.WatchEvent
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				ev = models.WatchEvent{Type: "UNDECODABLE " + sc.Text()}
			}
			out <- ev
		}
	}()
	return out
}

// next waits for the next event matching ok, failing on an event of a
// host in skip.
func next(t *testing.T, evs <-chan models.WatchEvent, what string, ok func(models.WatchEvent) bool, skip ...string) models.WatchEvent {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case ev, open := <-evs:
			if !open {
				t.Fatalf("stream ended waiting for %s", what)
			}
			for _, id := range skip {
				if ev.Object != nil && ev.Object.ID == id {
					t.Fatalf("event of host %s in another infra-env: %+v", id, ev.Type)
				}
			}
			if ok(ev) {
				return ev
			}
		case <-deadline:
			t.Fatalf("no event: %s", what)
		}
	}
}

func isEvent(typ, id string) func(models.WatchEvent) bool {
	return func(ev models.WatchEvent) bool { return ev.Type == typ && ev.Object != nil && ev.Object.ID == id }
}

// A watch lists the infra-env's hosts, then streams their changes and
// deletions, never a host of another infra-env; after falling behind the
// change feed it sends what it missed.
func TestWatchHosts(t *testing.T) {
	st := &stallingStore{Store: enginetest.NewStore(), stalled: make(chan engine.Change)}
	e := newEnv(t, st)
	ie, other := e.createInfraEnv(""), e.createInfraEnv("")
	register := func(ieID, id string) {
		e.must(cred{agent: e.agentConfig(ieID).Token}, 201, "POST", "/infra-envs/"+ieID+"/hosts", models.HostCreateParams{HostID: id})
	}
	register(ie.ID, testHostID)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	evs := e.watch(ctx, ie.ID, "")
	next(t, evs, "the existing host", isEvent(models.WatchAdded, testHostID))

	// Missed while the feed is stalled: a new host, a rename.
	register(ie.ID, testHostID2)
	e.must(adminCred(), 201, "PATCH", "/infra-envs/"+ie.ID+"/hosts/"+testHostID, map[string]any{"host_name": "renamed"})
	close(st.stalled)
	// The list is sent again in id order, changes only.
	ev := next(t, evs, "the rename made while behind", isEvent(models.WatchModified, testHostID))
	if ev.Object.RequestedHostname != "renamed" {
		t.Errorf("modified host hostname %q", ev.Object.RequestedHostname)
	}
	next(t, evs, "the host added while behind", isEvent(models.WatchAdded, testHostID2))

	// Followed live.
	const otherHost = "52540000-aabb-0001-0000-0000000000ff"
	register(other.ID, otherHost)
	e.must(adminCred(), 201, "PATCH", "/infra-envs/"+ie.ID+"/hosts/"+testHostID2, map[string]any{"approved": true})
	ev = next(t, evs, "approval", func(ev models.WatchEvent) bool {
		return isEvent(models.WatchModified, testHostID2)(ev) && ev.Object.Approved
	}, otherHost)
	e.must(adminCred(), 204, "DELETE", "/infra-envs/"+ie.ID+"/hosts/"+testHostID, nil)
	ev = next(t, evs, "deletion", isEvent(models.WatchDeleted, testHostID), otherHost)
	if ev.Object.InfraEnvID != ie.ID || ev.Object.Status != "" {
		t.Errorf("deleted event %+v", ev.Object.Host)
	}
}

// timeout_seconds ends the stream; bad parameters are refused.
func TestWatchTimeoutAndBadParams(t *testing.T) {
	e := newMemEnv(t)
	ie := e.createInfraEnv("")
	evs := e.watch(context.Background(), ie.ID, "&timeout_seconds=1")
	deadline := time.After(30 * time.Second)
	for open := true; open; {
		select {
		case ev, ok := <-evs:
			if ok {
				t.Errorf("event %+v on an empty infra-env", ev)
			}
			open = ok
		case <-deadline:
			t.Fatal("timeout_seconds did not end the stream")
		}
	}
	e.wantError(e.do(adminCred(), "GET", "/infra-envs/"+ie.ID+"/hosts?watch=maybe", nil), 400, "watch")
	e.wantError(e.do(adminCred(), "GET", "/infra-envs/"+ie.ID+"/hosts?watch=true&timeout_seconds=0", nil), 400, "timeout_seconds")
	var hosts []models.APIHost
	e.must(adminCred(), 200, "GET", "/infra-envs/"+ie.ID+"/hosts?watch=false", nil).decode(t, &hosts)
	if len(hosts) != 0 {
		t.Errorf("hosts %v", hosts)
	}
}

// A watch of an infra-env without hosts answers its headers at once: a
// client blocks on them before reading, and no event would carry them.
func TestWatchEmptyInfraEnvSendsHeaders(t *testing.T) {
	e := newEnv(t, enginetest.NewStore())
	ie := e.createInfraEnv("")
	// The deadline only bounds a hang: without the early flush, watch
	// blocks in Do until it passes.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	evs := e.watch(ctx, ie.ID, "")
	e.must(cred{agent: e.agentConfig(ie.ID).Token}, 201, "POST", "/infra-envs/"+ie.ID+"/hosts", models.HostCreateParams{HostID: testHostID})
	next(t, evs, "the first host", isEvent(models.WatchAdded, testHostID))
}
