package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestLoadChecksEveryBody(t *testing.T) {
	body := bytes.Repeat([]byte("rackboot disk image "), 200000)
	sum := sha256.Sum256(body)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := body
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		if r.URL.Path == "/short" {
			b = body[:len(body)-1]
		}
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(b))
	}))
	t.Cleanup(srv.Close)
	want := hex.EncodeToString(sum[:])
	good := Load{URLs: []string{srv.URL + "/a", srv.URL + "/b", srv.URL + "/c"}, Size: int64(len(body)), SHA256: want}
	r := good.Run(t.Context())
	if r.Downloads != 3 || r.Errors != 0 || r.Bytes != 3*int64(len(body)) || r.MBps() <= 0 {
		t.Fatalf("%+v", r)
	}
	bad := Load{URLs: []string{srv.URL + "/a", srv.URL + "/short"}, Size: int64(len(body)), SHA256: strings.Repeat("0", 64)}
	r = bad.Run(t.Context())
	if r.Downloads != 0 || r.Errors != 2 || !strings.Contains(r.FirstError, "wrong body") {
		t.Fatalf("%+v", r)
	}
	missing := Load{URLs: []string{srv.URL + "/missing"}, Size: 1}
	if r := missing.Run(t.Context()); r.Errors != 1 || !strings.Contains(r.FirstError, "404") {
		t.Fatalf("%+v", r)
	}
}

func TestReportRatio(t *testing.T) {
	rep := newReport(options{command: "bench/run.sh diskimage", clients: 50, sizeMiB: 256, rounds: 2, hash: true, route: routeKernel},
		image{sha256: strings.Repeat("ab", 32)})
	rep.rows[0].add(run{Result: Result{Downloads: 50, Bytes: 1e9, Seconds: 1}, cpu: time.Second})
	rep.rows[1].add(run{Result: Result{Downloads: 50, Bytes: 1e9, Seconds: 0.8}, cpu: time.Second})
	rep.rows[1].add(run{Result: Result{Downloads: 50, Bytes: 1e9, Seconds: 2}, cpu: time.Second})
	var b strings.Builder
	if err := rep.write(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| rackbootd | 1000 |", "| nginx | 1250 |", "**0.80×** (target ≥ 0.8×: met)", "nginx 1250, 500"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
}
