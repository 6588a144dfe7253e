package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rackboot/rackboot/cmd/rackbootctl/cli"
	"github.com/rackboot/rackboot/cmd/rackbootctl/internal/testserver"
)

const pullSecret = `{"auths":{"registry.example.com":{"auth":"c2VjcmV0LXVzZXI6c2VjcmV0LXBhc3M="}}}`

// result is one run of the CLI.
type result struct {
	code           int
	stdout, stderr string
}

// rig runs the CLI against one server with the environment env.
type rig struct {
	t   *testing.T
	srv *testserver.Server
	env map[string]string
	dir string
}

func newRig(t *testing.T) *rig {
	srv := testserver.Start(t)
	return &rig{t: t, srv: srv, dir: t.TempDir(),
		env: map[string]string{"RACKBOOT_URL": srv.URL, "RACKBOOT_TOKEN": srv.Token}}
}

func (r *rig) cliEnv(stdout io.Writer, stderr io.Writer) cli.Env {
	return cli.Env{Stdout: stdout, Stderr: stderr, Version: "test",
		Getenv: func(k string) string { return r.env[k] }, Stdin: strings.NewReader(pullSecret)}
}

// run runs rackbootctl args to completion and checks that no secret was
// printed (except by download, whose file is the user's to have).
func (r *rig) run(args ...string) result {
	r.t.Helper()
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), args, r.cliEnv(&out, &errb))
	res := result{code, out.String(), errb.String()}
	shown := res.stdout + res.stderr
	if len(args) > 0 && args[0] == "download" {
		shown = res.stderr
	}
	for _, s := range []string{r.srv.Token, "c2VjcmV0LXVzZXI6c2VjcmV0LXBhc3M="} {
		if strings.Contains(shown, s) {
			r.t.Errorf("rackbootctl %v printed a secret:\n%s%s", args, res.stdout, res.stderr)
		}
	}
	return res
}

// ok runs args and fails the test unless it exits 0.
func (r *rig) ok(args ...string) string {
	r.t.Helper()
	res := r.run(args...)
	if res.code != 0 {
		r.t.Fatalf("rackbootctl %v: exit %d\n%s%s", args, res.code, res.stdout, res.stderr)
	}
	return res.stdout
}

// file writes a file into the rig's directory and returns its path.
func (r *rig) file(name, content string) string {
	p := filepath.Join(r.dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		r.t.Fatal(err)
	}
	return p
}

// createdID parses "<kind>/<id> created".
func createdID(t *testing.T, out string) string {
	t.Helper()
	name, ok := strings.CutSuffix(strings.TrimSpace(out), " created")
	_, id, ok2 := strings.Cut(name, "/")
	if !ok || !ok2 {
		t.Fatalf("not a created line: %q", out)
	}
	return id
}

// lines delivers the lines written to the returned writer.
func lines() (io.WriteCloser, <-chan string) {
	pr, pw := io.Pipe()
	ch := make(chan string, 100)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			ch <- sc.Text()
		}
	}()
	return pw, ch
}

// waitLine returns the first line from ch for which match is true.
func waitLine(t *testing.T, ch <-chan string, what string, match func(string) bool) string {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case l, ok := <-ch:
			if !ok {
				t.Fatalf("output ended before %s", what)
			}
			if match(l) {
				return l
			}
		case <-deadline:
			t.Fatalf("no line with %s", what)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
