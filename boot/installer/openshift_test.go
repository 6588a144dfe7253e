package installer

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/boot/redact"
)

// fakeRun runs the fake openshift-install on c in a fresh work directory.
type fakeRun struct {
	work string
	logs bytes.Buffer
}

func (r *fakeRun) generate(t *testing.T, ctx context.Context, c Cluster) (*Artifacts, error) {
	t.Helper()
	fake, err := filepath.Abs("testdata/fake-openshift-install")
	if err != nil {
		t.Fatal(err)
	}
	if r.work == "" {
		r.work = t.TempDir()
	}
	log := slog.New(slog.NewTextHandler(&r.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	return NewOpenShiftInstall(fake, r.work, log).Generate(ctx, c)
}

// file returns what the fake recorded in the work directory.
func (r *fakeRun) file(t *testing.T, name string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(r.work, name))
	if err != nil {
		t.Fatalf("the fake did not record %s: %v", name, err)
	}
	return string(raw)
}

// assertClean checks that no secret reached the logs or the environment
// and that the cluster directory is gone.
func (r *fakeRun) assertClean(t *testing.T) {
	t.Helper()
	for _, secret := range []string{testPullSecret, "c2VjcmV0LXVzZXI6c2VjcmV0LXBhc3N3b3Jk"} {
		if strings.Contains(r.logs.String(), secret) {
			t.Errorf("the log shows the pull secret:\n%s", r.logs.String())
		}
		matches, _ := filepath.Glob(filepath.Join(r.work, "env-*"))
		for _, m := range matches {
			if raw, _ := os.ReadFile(m); bytes.Contains(raw, []byte(secret)) {
				t.Errorf("%s: the pull secret is in openshift-install's environment", m)
			}
		}
	}
	if dirs, _ := filepath.Glob(filepath.Join(r.work, "cluster-*")); len(dirs) != 0 {
		t.Errorf("cluster directories left behind: %v", dirs)
	}
}

func TestOpenShiftInstallMultiNode(t *testing.T) {
	var r fakeRun
	c := multiNodeCluster()
	a, err := r.generate(t, context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.file(t, "calls"); got != "create ignition-configs\n" {
		t.Errorf("calls %q, want create ignition-configs only", got)
	}
	ic, err := InstallConfig(c)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.file(t, "install-config-ignition-configs.yaml"); got != string(ic) || !bytes.Equal(a.InstallConfig, ic) {
		t.Errorf("openshift-install got (or Artifacts holds) another install-config than InstallConfig(c):\n%s", got)
	}
	env := r.file(t, "env-ignition-configs")
	if !strings.Contains(env, "OPENSHIFT_INSTALL_RELEASE_IMAGE_OVERRIDE="+c.ReleaseImage+"\n") {
		t.Errorf("release image not passed:\n%s", env)
	}
	for name, want := range map[string]struct {
		got  []byte
		text string
	}{
		"bootstrap":  {a.Bootstrap, "demo:22623/config/bootstrap"},
		"master":     {a.Master, "demo:22623/config/master"},
		"worker":     {a.Worker, "demo:22623/config/worker"},
		"metadata":   {a.Metadata, `"infraID":"demo-fake"`},
		"kubeconfig": {a.Kubeconfig, "- name: demo"},
		"password":   {a.KubeadminPassword, "fake-kubeadmin-password"},
	} {
		if !bytes.Contains(want.got, []byte(want.text)) {
			t.Errorf("%s = %q, want it to hold %q", name, want.got, want.text)
		}
	}
	host, err := a.RoleConfig(c.Hosts[3])
	if err != nil || !bytes.Equal(host, a.Worker) {
		t.Errorf("RoleConfig(worker) wrong: %v", err)
	}
	r.assertClean(t)
}

func TestOpenShiftInstallSingleNode(t *testing.T) {
	var r fakeRun
	a, err := r.generate(t, context.Background(), singleNodeCluster())
	if err != nil {
		t.Fatal(err)
	}
	if got := r.file(t, "calls"); got != "create single-node-ignition-config\n" {
		t.Errorf("calls %q", got)
	}
	if !bytes.Contains(a.Master, []byte("sno:22623/config/bootstrap-in-place")) || !bytes.Equal(a.Bootstrap, a.Master) {
		t.Errorf("single node: Master %q, Bootstrap %q; want both the bootstrap-in-place config", a.Master, a.Bootstrap)
	}
	if !bytes.Contains(a.Worker, []byte("config/worker")) {
		t.Errorf("Worker %q", a.Worker)
	}
	r.assertClean(t)
}

func TestOpenShiftInstallManifests(t *testing.T) {
	var r fakeRun
	c := multiNodeCluster()
	c.Manifests = []Manifest{
		{Folder: "manifests", FileName: "50-chrony.yaml", Content: []byte("kind: MachineConfig\n")},
		{Folder: "openshift", FileName: "99-extra.json", Content: []byte(`{"kind":"ConfigMap"}`)},
	}
	if _, err := r.generate(t, context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if got := r.file(t, "calls"); got != "create manifests\ncreate ignition-configs\n" {
		t.Errorf("calls %q, want create manifests then create ignition-configs", got)
	}
	listing := r.file(t, "manifests-ignition-configs")
	for _, name := range []string{"50-chrony.yaml", "99-extra.json", "cluster-config.yaml", "99_openshift-cluster-api_master-user-data-secret.yaml"} {
		if !strings.Contains(listing, name+"\n") {
			t.Errorf("%s not in the directories create ignition-configs saw:\n%s", name, listing)
		}
	}
	r.assertClean(t)
}

func TestOpenShiftInstallFailures(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(*Cluster)
		want  error
		texts []string
	}{
		{"fail-exit", nil, ErrGenerator, []string{"create ignition-configs", "exit status 3", "failed to fetch Master Ignition", redact.Redacted}},
		{"missing-output", nil, ErrGenerator, []string{"did not write auth/kubeconfig"}},
		{"bad-ignition", nil, ErrRoleConfig, []string{"master.ign", "unsupported config version"}},
		{"bad-folder", func(c *Cluster) { c.Manifests = []Manifest{{Folder: "etc", FileName: "x.yaml"}} }, ErrInvalidInput, []string{`folder "etc"`}},
		{"bad-file-name", func(c *Cluster) { c.Manifests = []Manifest{{Folder: "openshift", FileName: "../x.yaml"}} }, ErrInvalidInput, []string{"../x.yaml"}},
		{"not-yaml", func(c *Cluster) { c.Manifests = []Manifest{{Folder: "openshift", FileName: "x.sh"}} }, ErrInvalidInput, []string{"x.sh"}},
		{"bad-override", func(c *Cluster) { c.InstallConfigOverrides = "[" }, ErrInstallConfigOverride, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r fakeRun
			c := multiNodeCluster()
			c.Name = tc.name
			if tc.edit != nil {
				tc.edit(&c)
			}
			a, err := r.generate(t, context.Background(), c)
			if !errors.Is(err, tc.want) || a != nil {
				t.Fatalf("Generate = %v, %v; want %v", a, err, tc.want)
			}
			t.Logf("error: %v", err)
			for _, text := range tc.texts {
				if !strings.Contains(err.Error(), text) {
					t.Errorf("error %q does not say %q", err, text)
				}
			}
			for _, secret := range []string{"c2VjcmV0LXVzZXI6c2VjcmV0LXBhc3N3b3Jk", "ops@rack.example"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("error shows the pull secret: %v", err)
				}
			}
			r.assertClean(t)
		})
	}
}

func TestOpenShiftInstallMissingBinary(t *testing.T) {
	g := NewOpenShiftInstall(filepath.Join(t.TempDir(), "openshift-install"), t.TempDir(), nil)
	if _, err := g.Generate(context.Background(), multiNodeCluster()); !errors.Is(err, ErrGenerator) {
		t.Errorf("missing binary: %v, want ErrGenerator", err)
	}
}

// TestOpenShiftInstallCancel: ending ctx kills openshift-install and its
// children, and Generate returns the context's error.
func TestOpenShiftInstallCancel(t *testing.T) {
	var r fakeRun
	c := multiNodeCluster()
	c.Name = "hang"
	r.work = t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := r.generate(t, ctx, c)
		done <- err
	}()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(30 * time.Second)
	pid := 0
	for pid == 0 {
		select {
		case err := <-done:
			t.Fatalf("Generate returned before the cancel: %v", err)
		case <-deadline:
			t.Fatal("the fake never started its child")
		case <-tick.C:
			raw, _ := os.ReadFile(filepath.Join(r.work, "child.pid"))
			pid, _ = strconv.Atoi(strings.TrimSpace(string(raw)))
		}
	}
	cancel()
	err := <-done
	if !errors.Is(err, context.Canceled) || !errors.Is(err, ErrGenerator) {
		t.Fatalf("Generate = %v, want context.Canceled and ErrGenerator", err)
	}
	for alive(pid) {
		select {
		case <-deadline:
			t.Fatalf("the fake's child %d survived the cancel", pid)
		case <-tick.C:
		}
	}
	r.assertClean(t)
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(raw), ") ")
	return !strings.HasPrefix(rest, "Z")
}
