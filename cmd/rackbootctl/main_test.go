package main_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/cmd/rackbootctl/internal/testserver"
)

const pullSecret = `{"auths":{"registry.example.com":{"auth":"c2VjcmV0LXVzZXI6c2VjcmV0LXBhc3M="}}}`

// binary is the rackbootctl built for these tests.
var binary string

func TestMain(m *testing.M) {
	os.Exit(build(m))
}

func build(m *testing.M) int {
	dir, err := os.MkdirTemp("", "rackbootctl-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binary = filepath.Join(dir, "rackbootctl")
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	cmd := exec.Command(gobin, "build", "-ldflags", "-X main.version=e2e", "-o", binary, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building rackbootctl: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

// ctl prepares the binary with args against srv, token tok.
func ctl(srv *testserver.Server, tok string, args ...string) *exec.Cmd {
	cmd := exec.Command(binary, args...)
	cmd.Env = []string{"RACKBOOT_URL=" + srv.URL, "RACKBOOT_TOKEN=" + tok, "PATH=/usr/bin:/bin"}
	return cmd
}

// run runs the binary and returns stdout, stderr and the exit code.
func run(t *testing.T, cmd *exec.Cmd) (string, string, int) {
	t.Helper()
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return out.String(), errb.String(), 0
	case errors.As(err, &ee):
		return out.String(), errb.String(), ee.ExitCode()
	}
	t.Fatal(err)
	return "", "", -1
}

func TestBinaryCreateGetDownload(t *testing.T) {
	srv := testserver.Start(t)
	dir := t.TempDir()
	ps := filepath.Join(dir, "ps.json")
	if err := os.WriteFile(ps, []byte(pullSecret), 0o600); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := run(t, ctl(srv, srv.Token, "create", "infra-env", "--name", "rack-a", "--pull-secret-file", ps))
	if code != 0 || !strings.HasPrefix(out, "infra-env/") || strings.Contains(out+stderr, "c2VjcmV0") {
		t.Fatalf("create infra-env: exit %d\n%s%s", code, out, stderr)
	}
	id := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(out), "infra-env/"), " created")

	out, stderr, code = run(t, ctl(srv, srv.Token, "get", "infra-envs"))
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[0], "ID ") || !strings.HasPrefix(lines[1], id+" ") ||
		!strings.Contains(lines[1], "rack-a") {
		t.Fatalf("get infra-envs: exit %d\n%s%s", code, out, stderr)
	}

	ign := filepath.Join(dir, "discovery.ign")
	if _, stderr, code = run(t, ctl(srv, srv.Token, "download", "discovery-ignition", "--infra-env", id, "-o", ign)); code != 0 {
		t.Fatalf("download: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(ign)
	if err != nil {
		t.Fatal(err)
	}
	ac, err := testserver.AgentConfig(b)
	if err != nil {
		t.Fatalf("downloaded discovery Ignition: %v", err)
	}
	if ac.InfraEnvID != id || ac.ServiceURL != srv.URL || ac.Token == "" {
		t.Errorf("agent config: infra-env %q service %q", ac.InfraEnvID, ac.ServiceURL)
	}
}

func TestBinaryBadTokenAndUsage(t *testing.T) {
	srv := testserver.Start(t)
	out, stderr, code := run(t, ctl(srv, "not-the-admin-token", "get", "hosts"))
	if code != 1 || out != "" {
		t.Errorf("bad token: exit %d, stdout %q", code, out)
	}
	if !strings.HasPrefix(stderr, "error: ") || !strings.Contains(stderr, "(HTTP 401)") ||
		!strings.Contains(stderr, "check --token, RACKBOOT_TOKEN") || strings.Contains(stderr, "not-the-admin-token") {
		t.Errorf("bad token stderr: %q", stderr)
	}
	if _, stderr, code = run(t, ctl(srv, srv.Token, "get", "widgets")); code != 2 || !strings.Contains(stderr, `unknown resource "widgets"`) {
		t.Errorf("usage error: exit %d, %q", code, stderr)
	}
	if out, _, code = run(t, ctl(srv, srv.Token, "version")); code != 0 || !strings.HasPrefix(out, "rackbootctl e2e ") {
		t.Errorf("version: exit %d, %q", code, out)
	}
}

// get hosts -w, as a process: a host registering through the API (with
// the agent token out of the discovery Ignition, like the agent) shows up
// as a new row; SIGINT ends the watch with exit 0.
func TestBinaryWatchHosts(t *testing.T) {
	srv := testserver.Start(t)
	cmd := ctl(srv, srv.Token, "create", "infra-env", "--name", "rack-b", "--pull-secret-file", "-")
	cmd.Stdin = strings.NewReader(pullSecret)
	out, stderr, code := run(t, cmd)
	if code != 0 {
		t.Fatalf("create: %d %s", code, stderr)
	}
	id := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(out), "infra-env/"), " created")
	ign, stderr, code := run(t, ctl(srv, srv.Token, "download", "discovery-ignition", "--infra-env", id))
	if code != 0 {
		t.Fatalf("download to a pipe: %d %s", code, stderr)
	}
	ac, err := testserver.AgentConfig([]byte(ign))
	if err != nil {
		t.Fatal(err)
	}

	watch := ctl(srv, srv.Token, "get", "hosts", "-w", "--interval", "100ms")
	pipe, err := watch.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var werr strings.Builder
	watch.Stderr = &werr
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = watch.Process.Kill(); _ = watch.Wait() })
	lines := make(chan string, 100)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	next := func(what string) string {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("watch ended before %s: %s", what, werr.String())
			}
			return l
		case <-time.After(20 * time.Second):
			t.Fatalf("no %s from the watch", what)
		}
		return ""
	}
	if h := next("header"); !strings.HasPrefix(h, "ID ") || !strings.Contains(h, "INFRA-ENV") {
		t.Fatalf("header %q", h)
	}
	const hostID = "bbbbbbbb-0000-4000-8000-000000000002"
	if err := testserver.Register(context.Background(), ac, hostID); err != nil {
		t.Fatal(err)
	}
	row := next("row")
	if !strings.HasPrefix(row, hostID) || !strings.Contains(row, "discovering-unbound") || !strings.Contains(row, id) {
		t.Errorf("row %q", row)
	}
	if err := watch.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	for range lines {
	}
	if err := watch.Wait(); err != nil {
		t.Errorf("watch after SIGINT: %v (%s)", err, werr.String())
	}
}
