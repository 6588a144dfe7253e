package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rackboot/rackboot/engine"
)

// serverTimings are the in-process server's own measurements: how long
// its handlers ran per kind of agent request, and how long the API waited
// in the store (Apply: raft commit and apply; Read: lock wait and the
// read). They show where a request's time goes, apart from the client's
// and the machine's scheduling. Reset at the start of each phase.
type serverTimings struct {
	mu   sync.Mutex
	recs map[string]*recorder
}

func newServerTimings() *serverTimings { return &serverTimings{recs: map[string]*recorder{}} }

func (t *serverTimings) add(name string, d time.Duration) {
	t.mu.Lock()
	r, ok := t.recs[name]
	if !ok {
		r = newRecorder(name, 1024)
		t.recs[name] = r
	}
	t.mu.Unlock()
	r.add(d, nil)
}

func (t *serverTimings) reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.recs = map[string]*recorder{}
}

func (t *serverTimings) summaries() []summary {
	t.mu.Lock()
	recs := make([]*recorder, 0, len(t.recs))
	for _, r := range t.recs {
		recs = append(recs, r)
	}
	t.mu.Unlock()
	out := make([]summary, 0, len(recs))
	for _, r := range recs {
		out = append(out, r.summarize())
	}
	slices.SortFunc(out, func(a, b summary) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// handlerName names an agent request by method and last path element.
func handlerName(r *http.Request) string {
	switch p := r.URL.Path; {
	case strings.HasSuffix(p, "/instructions"):
		return "handler " + r.Method + " …/instructions"
	case strings.HasSuffix(p, "/hosts"):
		return "handler " + r.Method + " …/hosts"
	}
	return "handler, other"
}

// timed wraps h to record its run time.
func (t *serverTimings) timed(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t0 := time.Now()
		h.ServeHTTP(w, r)
		t.add(handlerName(r), time.Since(t0))
	})
}

// serve answers GET /bench/timings (JSON summaries) and POST
// /bench/timings/reset.
func (t *serverTimings) register(mux *http.ServeMux) {
	mux.HandleFunc("GET /bench/timings", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(t.summaries())
	})
	mux.HandleFunc("POST /bench/timings/reset", func(w http.ResponseWriter, _ *http.Request) {
		t.reset()
		w.WriteHeader(http.StatusNoContent)
	})
}

// timedStore measures the API's calls into the store.
type timedStore struct {
	engine.Store
	t *serverTimings
}

func (s timedStore) Apply(ctx context.Context, cmd engine.Command) (any, error) {
	t0 := time.Now()
	v, err := s.Store.Apply(ctx, cmd)
	s.t.add("store Apply (commit + apply)", time.Since(t0))
	return v, err
}

func (s timedStore) Read(fn func(m *engine.Model)) {
	t0 := time.Now()
	s.Store.Read(fn)
	s.t.add("store Read (lock wait + read)", time.Since(t0))
}

// serverSide fetches the in-process server's timings (nil for the binary).
func (s *server) serverSide(ctx context.Context, reset bool) []summary {
	if s.kind != kindInProcess {
		return nil
	}
	method, path := http.MethodGet, "/bench/timings"
	if reset {
		method, path = http.MethodPost, "/bench/timings/reset"
	}
	req, err := http.NewRequestWithContext(ctx, method, s.base+path, nil)
	if err != nil {
		return nil
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	var out []summary
	if !reset {
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			fmt.Fprintln(os.Stderr, "agents: server timings:", err)
		}
	}
	return out
}
