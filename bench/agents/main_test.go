package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMain lets the test binary be the in-process server too: bench
// re-executes its own executable with -serve-data-dir.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "-serve-data-dir" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// A small run end to end against the in-process server: every host is
// registered with its inventory, polls succeed, the report says so and
// names the raft counters; the server is gone afterwards.
func TestSmallRun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	work := t.TempDir()
	out := filepath.Join(work, "report.md")
	o := options{hosts: 20, concurrency: 4, interval: time.Second, pollFor: 2 * time.Second,
		server: kindInProcess, work: work, keep: true, out: out}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var stdout bytes.Buffer
	if err := bench(ctx, o, &stdout); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(md, stdout.Bytes()) {
		t.Error("the file and stdout differ")
	}
	for _, want := range []string{
		"## Agents: 20 simulated hosts against one rackbootd",
		"(20/20 with inventory, 0 failed)",
		"| register (POST …/hosts → 201) | 20 | 0 |",
		"| inventory reply (POST …/instructions → 204) | 20 | 0 |",
		"known-unbound 20",
		"| registration |",
		"| steady polling |",
		"in-process",
		"Server side, steady polling",
		"store Apply (commit + apply)",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(string(md), "n/a | n/a") {
		t.Errorf("raft counters missing:\n%s", md)
	}
	// The server removed nothing of its data but is no longer listening.
	if addr := readAddr(filepath.Join(work, "inprocess")); addr == "" {
		t.Error("no address file")
	} else if _, err := (&server{base: "http://" + addr}).metrics(ctx); err == nil {
		t.Error("the server still answers after the run")
	}
}

func TestFlags(t *testing.T) {
	var stderr bytes.Buffer
	o, err := parseFlags(nil, &stderr)
	if err != nil || o.hosts != 10000 || o.concurrency != 200 || o.interval != time.Minute || o.server != kindAuto {
		t.Errorf("defaults %+v, %v", o, err)
	}
	for _, bad := range [][]string{{"-hosts", "0"}, {"-interval", "10ms"}, {"-poll", "2h"}, {"extra"}, {"-nope"}} {
		if _, err := parseFlags(bad, &stderr); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
