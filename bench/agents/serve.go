package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/rackboot/rackboot/cluster"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/api"
	"github.com/rackboot/rackboot/engine/auth"
)

// addrFile is where the in-process server writes its listening address,
// inside its data directory.
const addrFile = "bench-addr"

// serveInProcess is the server process of -server inprocess: the engine
// API over a one-voter raft store in dataDir on 127.0.0.1, with /healthz,
// /metrics (rackbootd's raft counters plus the batching samples) and
// /debug/pprof, and its own handler and store timings (timing.go). It logs at info level to dataDir/server.log, as rackbootd
// logs every registration and inventory. It returns when ctx ends.
//
// With contention, blocking (events of 1 ms and more, sampled) and mutex
// contention (1 in 10) are profiled too.
func serveInProcess(ctx context.Context, dataDir string, contention bool) error {
	if contention {
		runtime.SetBlockProfileRate(int(time.Millisecond))
		runtime.SetMutexProfileFraction(10)
	}
	sink := newRaftSink()
	if err := sink.install(); err != nil {
		return err
	}
	logf, err := os.OpenFile(filepath.Join(dataDir, "server.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("agents: server log: %w", err)
	}
	defer logf.Close()
	log := slog.New(slog.NewTextHandler(logf, nil))
	tok, err := auth.LoadOrCreateAdminToken(dataDir)
	if err != nil {
		return err
	}
	octx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	st, err := cluster.Open(octx, cluster.Config{DataDir: dataDir, Log: log.With("service", "state")})
	if err != nil {
		return err
	}
	defer st.Close()
	keys, err := engine.LoadKeyRing(octx, st)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("agents: listen: %w", err)
	}
	base := "http://" + ln.Addr().String()
	timings := newServerTimings()
	opts := api.Options{Store: timedStore{Store: st, t: timings}, AdminToken: tok, Keys: keys, ServiceURL: base, Log: log.With("service", "api")}
	h, err := api.New(opts)
	if err != nil {
		ln.Close()
		return err
	}
	go engine.WhileLeader(ctx, st, func(ctx context.Context) {
		if err := api.Monitor(ctx, opts, 0); err != nil {
			log.Error("monitor", "err", err)
		}
	})
	srv := &http.Server{Handler: serverMux(timings.timed(h), st, sink, timings), ReadHeaderTimeout: 10 * time.Second}
	if err := writeAddr(dataDir, ln.Addr().String()); err != nil {
		ln.Close()
		return err
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("agents: serve: %w", err)
	case <-ctx.Done():
	}
	sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer scancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("agents: shutdown: %w", err)
	}
	return nil
}

// serverMux routes the API, health, metrics and profiling endpoints.
func serverMux(h http.Handler, st *cluster.Store, sink *raftSink, t *serverTimings) *http.ServeMux {
	mux := http.NewServeMux()
	t.register(mux)
	mux.Handle(api.BasePath+"/", h)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, _ *http.Request) {
		s := st.Stats()
		fmt.Fprintf(w, "rackboot_raft_last_index %d\nrackboot_raft_applied_index %d\nrackboot_raft_commands_applied_total %d\n",
			s.LastIndex, s.AppliedIndex, s.Commands)
		sink.writeTo(w)
	})
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// writeAddr writes the listening address atomically.
func writeAddr(dataDir, addr string) error {
	tmp := filepath.Join(dataDir, addrFile+".tmp")
	if err := os.WriteFile(tmp, []byte(addr+"\n"), 0o600); err != nil {
		return fmt.Errorf("agents: address file: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dataDir, addrFile)); err != nil {
		return fmt.Errorf("agents: address file: %w", err)
	}
	return nil
}

// readAddr reads what writeAddr wrote ("" when not yet there).
func readAddr(dataDir string) string {
	b, err := os.ReadFile(filepath.Join(dataDir, addrFile))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
