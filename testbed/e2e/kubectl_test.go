package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rackboot/rackboot/testbed/netns"
)

// kubectlBin is the real kubectl (v1.32 on the test machines).
const kubectlBin = "/usr/bin/kubectl"

// kubectl runs the real kubectl inside a network namespace of the bed with
// the kubeconfig `rackbootctl kubeconfig` printed, as a user on that
// segment would.
type kubectl struct {
	t   *testing.T
	ns  *netns.NS
	dir string
	env []string
}

// newKubectl writes kubeconfig (what rackbootctl kubeconfig printed) into
// a fresh directory (also kubectl's HOME, for its cache).
func newKubectl(t *testing.T, ns *netns.NS, kubeconfig string) *kubectl {
	t.Helper()
	if !strings.Contains(kubeconfig, "server: https://") || !strings.Contains(kubeconfig, "certificate-authority-data: ") {
		t.Fatalf("rackbootctl kubeconfig printed no https server with its CA:\n%s", kubeconfig)
	}
	dir := t.TempDir()
	kc := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kc, []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	k := &kubectl{t: t, ns: ns, dir: dir, env: append(os.Environ(), "KUBECONFIG="+kc, "HOME="+dir)}
	return k
}

// run runs kubectl args; a non-zero exit is an error holding its
// standard error.
func (k *kubectl) run(args ...string) (string, error) {
	cmd := k.ns.Command(k.t.Context(), kubectlBin, args...)
	cmd.Env = k.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("kubectl %s: %w\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String(), nil
}

// must runs kubectl args and fails the test if it fails.
func (k *kubectl) must(args ...string) string {
	k.t.Helper()
	out, err := k.run(args...)
	if err != nil {
		k.t.Fatal(err)
	}
	return out
}

// file writes a manifest into kubectl's directory and returns its path.
func (k *kubectl) file(name, content string) string {
	k.t.Helper()
	p := filepath.Join(k.dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		k.t.Fatal(err)
	}
	return p
}

// poll runs kubectl args every few seconds until ok accepts its output
// (a failed run counts as not yet) and returns that output; it fails the
// test after limit, naming what it waited for.
func (k *kubectl) poll(limit time.Duration, what string, ok func(string) bool, args ...string) string {
	k.t.Helper()
	deadline := time.Now().Add(limit)
	var last string
	for {
		out, err := k.run(args...)
		if err == nil && ok(out) {
			return out
		}
		last = out
		if err != nil {
			last = err.Error()
		}
		if time.Now().After(deadline) {
			k.t.Fatalf("%s: not within %s; kubectl %s last printed:\n%s", what, limit, strings.Join(args, " "), last)
		}
		select {
		case <-k.t.Context().Done():
			k.t.Fatal(k.t.Context().Err())
		case <-time.After(3 * time.Second):
		}
	}
}

// watchLog is what a long-running kubectl (get -w) printed so far.
type watchLog struct {
	mu    sync.Mutex
	lines []string
	ended bool
}

// snapshot returns the lines so far and whether kubectl's output ended.
func (w *watchLog) snapshot() ([]string, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.lines...), w.ended
}

// await waits until a line from index from on satisfies ok and returns
// its index; it fails the test if kubectl's output ends or after limit.
func (w *watchLog) await(t *testing.T, from int, limit time.Duration, what string, ok func(string) bool) int {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		lines, ended := w.snapshot()
		for i := from; i < len(lines); i++ {
			if ok(lines[i]) {
				return i
			}
		}
		if ended {
			t.Fatalf("the watch ended before %s", what)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the watch printed no %s within %s", what, limit)
		}
		select {
		case <-t.Context().Done():
			t.Fatal(t.Context().Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// watch starts kubectl args (a `get -w`) until the test ends; each line
// it prints is logged and kept.
func (k *kubectl) watch(args ...string) *watchLog {
	k.t.Helper()
	ctx, cancel := context.WithCancel(context.WithoutCancel(k.t.Context()))
	cmd := k.ns.Command(ctx, kubectlBin, args...)
	cmd.Env = k.env
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.StdoutPipe()
	if err != nil {
		k.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		k.t.Fatal(err)
	}
	w := &watchLog{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			w.mu.Lock()
			w.lines = append(w.lines, sc.Text())
			w.mu.Unlock()
		}
		w.mu.Lock()
		w.ended = true
		w.mu.Unlock()
	}()
	k.t.Cleanup(func() {
		cancel()
		<-done
		_ = cmd.Wait()
		lines, _ := w.snapshot()
		k.t.Logf("kubectl %s printed:\n%s\n%s", strings.Join(args, " "), strings.Join(lines, "\n"), errb.String())
	})
	return w
}
