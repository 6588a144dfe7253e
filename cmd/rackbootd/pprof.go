package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// newPprof listens on server.pprof_listen, when set, for Go's profiles
// (/debug/pprof/: heap, CPU, goroutines…), on its own loopback-only
// listener (the configuration refuses any other address) so that no
// token or network peer reaches them.
func (d *daemon) newPprof() error {
	addr := d.cfg.Server.PprofListen
	if addr == "" {
		return nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("pprof: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	d.pprofLn = ln
	d.pprof = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	d.log.Info("serving Go profiles", "addr", ln.Addr().String())
	return nil
}
