package installer

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// progressServer records the progress reports it gets and answers status.
type progressServer struct {
	mu      sync.Mutex
	status  int
	reports []report
}

type report struct {
	method, path, secret, contentType string
	body                              map[string]any
}

func (s *progressServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	s.mu.Lock()
	s.reports = append(s.reports, report{r.Method, r.URL.Path, r.Header.Get("X-Secret-Key"), r.Header.Get("Content-Type"), body})
	status := s.status
	s.mu.Unlock()
	w.WriteHeader(status)
}

func (s *progressServer) got() []report {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]report(nil), s.reports...)
}

// installedHost is the first-boot files of a HostIgnition output laid out
// in a directory, as Ignition would write them on the installed system.
type installedHost struct {
	script, token, stamp, console string
}

func installFirstBoot(t *testing.T, progressURL string) installedHost {
	t.Helper()
	p := testParams()
	p.FirstBoot.ProgressURL = progressURL
	out, err := HostIgnition(readTestdata(t, "roles/worker.ign"), p)
	if err != nil {
		t.Fatal(err)
	}
	cfg := mustParse(t, out)
	dir := t.TempDir()
	h := installedHost{
		script:  filepath.Join(dir, "rackboot-firstboot"),
		token:   filepath.Join(dir, "firstboot.token"),
		stamp:   filepath.Join(dir, "var/lib/rackboot/firstboot.done"),
		console: filepath.Join(dir, "console"),
	}
	for path, dst := range map[string]string{FirstBootScript: h.script, FirstBootTokenPath: h.token} {
		text, mode, ok := fileOf(t, cfg, path)
		if !ok {
			t.Fatalf("no %s", path)
		}
		if err := os.WriteFile(dst, []byte(text), os.FileMode(mode)); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

// run runs the script with shell (sh, or busybox sh as in the testbed
// image) and returns its exit error and what it printed to the console.
func (h installedHost) run(t *testing.T, shell ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(shell[0], append(shell[1:], h.script)...)
	cmd.Env = append(os.Environ(), "RACKBOOT_FIRSTBOOT_TOKEN="+h.token,
		"RACKBOOT_FIRSTBOOT_STAMP="+h.stamp, "RACKBOOT_CONSOLE="+h.console)
	out, err := cmd.CombinedOutput()
	if len(out) > 0 {
		t.Logf("script output: %s", out)
	}
	console, _ := os.ReadFile(h.console)
	return string(console), err
}

func shells(t *testing.T) map[string][]string {
	out := map[string][]string{}
	if p, err := exec.LookPath("sh"); err == nil {
		out["sh"] = []string{p}
	}
	if p, err := exec.LookPath("busybox"); err == nil {
		out["busybox"] = []string{p, "sh"}
	}
	if _, err := exec.LookPath("curl"); err != nil || len(out) == 0 {
		t.Skip("needs curl and a shell")
	}
	return out
}

// TestFirstBootReportsDone runs the first-boot script of a host config with
// the real curl against a progress endpoint on loopback.
func TestFirstBootReportsDone(t *testing.T) {
	for name, shell := range shells(t) {
		t.Run(name, func(t *testing.T) {
			srv := &progressServer{status: http.StatusOK}
			ts := httptest.NewServer(srv)
			defer ts.Close()
			h := installFirstBoot(t, ts.URL+"/api/assisted-install/v2/infra-envs/ie1/hosts/h1/progress")
			console, err := h.run(t, shell...)
			if err != nil || !strings.Contains(console, FirstBootDoneMarker) {
				t.Fatalf("script: %v, console %q; want success and %s", err, console, FirstBootDoneMarker)
			}
			got := srv.got()
			if len(got) != 1 {
				t.Fatalf("%d reports, want 1", len(got))
			}
			r := got[0]
			if r.method != http.MethodPut || r.path != "/api/assisted-install/v2/infra-envs/ie1/hosts/h1/progress" ||
				r.secret != testToken || r.contentType != "application/json" || r.body["current_stage"] != "Done" {
				t.Errorf("report %+v; want PUT of {current_stage: Done} with the token in X-Secret-Key", r)
			}
			if _, err := os.Stat(h.stamp); err != nil {
				t.Errorf("no stamp after success: %v", err)
			}
			if _, err := os.Stat(h.token); !os.IsNotExist(err) {
				t.Errorf("token file still there after success (%v)", err)
			}
			// The next boot does nothing.
			if _, err := h.run(t, shell...); err != nil || len(srv.got()) != 1 {
				t.Errorf("second boot: %v, %d reports; want nothing sent", err, len(srv.got()))
			}
		})
	}
}

// TestFirstBootRefused: a refused report (403) fails at once, prints the
// failure marker, and leaves the token for the next boot.
func TestFirstBootRefused(t *testing.T) {
	for name, shell := range shells(t) {
		t.Run(name, func(t *testing.T) {
			srv := &progressServer{status: http.StatusForbidden}
			ts := httptest.NewServer(srv)
			defer ts.Close()
			h := installFirstBoot(t, ts.URL+"/progress")
			console, err := h.run(t, shell...)
			if err == nil || !strings.Contains(console, FirstBootFailedMarker) || strings.Contains(console, FirstBootDoneMarker) {
				t.Fatalf("script: %v, console %q; want failure and %s", err, console, FirstBootFailedMarker)
			}
			if n := len(srv.got()); n != 1 {
				t.Errorf("%d reports, want 1 (a 403 is not retried)", n)
			}
			if _, err := os.Stat(h.stamp); !os.IsNotExist(err) {
				t.Errorf("stamp written after a failure (%v)", err)
			}
			if _, err := os.Stat(h.token); err != nil {
				t.Errorf("token removed after a failure: %v", err)
			}
		})
	}
}
