package installer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rackboot/rackboot/boot/redact"
)

// Files openshift-install reads and writes in its --dir.
const (
	InstallConfigYAML     = "install-config.yaml"
	BootstrapInPlaceIgn   = "bootstrap-in-place-for-live-iso.ign"
	KubeconfigPath        = "auth/kubeconfig"
	KubeadminPasswordPath = "auth/kubeadmin-password"
)

// Limits on what openshift-install writes.
const (
	maxCredential = 1 << 20
	maxMetadata   = 1 << 20
)

// openShiftInstall is the generator of NewOpenShiftInstall.
type openShiftInstall struct {
	binary, workDir string
	log             *slog.Logger
}

// NewOpenShiftInstall returns a Generator that runs binary (an
// openshift-install) on InstallConfig(c) in a fresh directory under workDir,
// as docs/install-generators.md describes: `create manifests` first when the
// cluster has custom manifests, then `create ignition-configs` (or, for
// single node, `create single-node-ignition-config`). The directory is
// removed afterwards. The run stops when ctx ends. Errors wrap ErrGenerator
// (with openshift-install's stderr) or ErrRoleConfig and never contain the
// pull secret. A nil log discards.
func NewOpenShiftInstall(binary, workDir string, log *slog.Logger) Generator {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return openShiftInstall{binary: binary, workDir: workDir, log: log}
}

func (o openShiftInstall) Generate(ctx context.Context, c Cluster) (*Artifacts, error) {
	a, err := o.generate(ctx, c)
	if err != nil {
		return nil, redact.Error(err, []string{c.PullSecret})
	}
	return a, nil
}

func (o openShiftInstall) generate(ctx context.Context, c Cluster) (*Artifacts, error) {
	ic, err := InstallConfig(c)
	if err != nil {
		return nil, err
	}
	if err := checkManifests(c.Manifests); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.workDir, 0o700); err != nil {
		return nil, fmt.Errorf("%w: work directory: %w", ErrGenerator, err)
	}
	dir, err := os.MkdirTemp(o.workDir, "cluster-"+safeName(c.ID)+"-")
	if err != nil {
		return nil, fmt.Errorf("%w: work directory: %w", ErrGenerator, err)
	}
	defer os.RemoveAll(dir) // it holds the pull secret and the credentials
	if err := os.WriteFile(filepath.Join(dir, InstallConfigYAML), ic, 0o600); err != nil {
		return nil, fmt.Errorf("%w: writing %s: %w", ErrGenerator, InstallConfigYAML, err)
	}
	if len(c.Manifests) > 0 {
		if err := o.run(ctx, c, dir, "manifests"); err != nil {
			return nil, err
		}
		if err := writeManifests(dir, c.Manifests); err != nil {
			return nil, err
		}
	}
	target := "ignition-configs"
	if c.SingleNode() {
		target = "single-node-ignition-config"
	}
	if err := o.run(ctx, c, dir, target); err != nil {
		return nil, err
	}
	a, err := readOutputs(dir, target, c.SingleNode())
	if err != nil {
		return nil, err
	}
	a.InstallConfig = ic
	return a, nil
}

// run runs `binary create <target> --dir <dir>`.
func (o openShiftInstall) run(ctx context.Context, c Cluster, dir, target string) error {
	log := o.log.With("cluster", c.ID, "command", "create "+target)
	log.Info("running openshift-install", "binary", o.binary, "dir", dir)
	start := time.Now()
	stderr, err := runCommand(ctx, o.binary, installerEnv(c, dir), "create", target, "--dir", dir)
	if err != nil {
		msg := oneLine(redact.Text(stderr, []string{c.PullSecret}))
		log.Warn("openshift-install failed", "err", redact.Error(err, []string{c.PullSecret}), "duration", time.Since(start))
		if msg == "" {
			return fmt.Errorf("%w: create %s: %w", ErrGenerator, target, err)
		}
		return fmt.Errorf("%w: create %s: %w: %s", ErrGenerator, target, err, msg)
	}
	log.Info("openshift-install done", "duration", time.Since(start))
	return nil
}

// installerEnv is the environment of openshift-install: PATH, HOME and
// TMPDIR of rackbootd (HOME is dir when unset), the invoker and the
// release image.
func installerEnv(c Cluster, dir string) []string {
	env := []string{"OPENSHIFT_INSTALL_INVOKER=rackboot"}
	home := dir
	if h := os.Getenv("HOME"); h != "" {
		home = h
	}
	env = append(env, "HOME="+home)
	for _, k := range []string{"PATH", "TMPDIR"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	if c.ReleaseImage != "" {
		env = append(env, "OPENSHIFT_INSTALL_RELEASE_IMAGE_OVERRIDE="+c.ReleaseImage)
	}
	return env
}

// checkManifests refuses a folder other than manifests or openshift and a
// file name that is not a plain .yaml, .yml or .json base name.
func checkManifests(ms []Manifest) error {
	for _, m := range ms {
		if m.Folder != "manifests" && m.Folder != "openshift" {
			return fmt.Errorf("%w: manifest %q: folder %q is not manifests or openshift", ErrInvalidInput, m.FileName, m.Folder)
		}
		name := m.FileName
		ext := strings.ToLower(filepath.Ext(name))
		if name == "" || strings.ContainsAny(name, "/\\\x00") || strings.HasPrefix(name, ".") ||
			(ext != ".yaml" && ext != ".yml" && ext != ".json") {
			return fmt.Errorf("%w: manifest file name %q: want a .yaml, .yml or .json base name", ErrInvalidInput, name)
		}
	}
	return nil
}

// writeManifests writes the custom manifests into dir/manifests and
// dir/openshift, which `create manifests` made.
func writeManifests(dir string, ms []Manifest) error {
	for _, m := range ms {
		folder := filepath.Join(dir, m.Folder)
		if err := os.MkdirAll(folder, 0o700); err != nil {
			return fmt.Errorf("%w: %w", ErrGenerator, err)
		}
		if err := os.WriteFile(filepath.Join(folder, m.FileName), m.Content, 0o600); err != nil {
			return fmt.Errorf("%w: writing manifest %s/%s: %w", ErrGenerator, m.Folder, m.FileName, err)
		}
	}
	return nil
}

// readOutputs reads what `create <target>` must have written into dir.
func readOutputs(dir, target string, singleNode bool) (*Artifacts, error) {
	var a Artifacts
	var err error
	ign := func(name string, required bool) []byte {
		if err != nil {
			return nil
		}
		var raw []byte
		raw, err = readOutput(dir, target, name, maxRoleConfig, required)
		if err == nil && raw != nil {
			if _, perr := parse(raw); perr != nil {
				err = fmt.Errorf("%w: create %s wrote an invalid %s: %w", ErrRoleConfig, target, name, perr)
			}
		}
		return raw
	}
	if singleNode {
		a.Bootstrap = ign(BootstrapInPlaceIgn, true)
		a.Master = a.Bootstrap
		a.Worker = ign(WorkerIgn, false)
	} else {
		a.Bootstrap = ign(BootstrapIgn, true)
		a.Master = ign(MasterIgn, true)
		a.Worker = ign(WorkerIgn, true)
	}
	if err != nil {
		return nil, err
	}
	if a.Metadata, err = readOutput(dir, target, MetadataJSON, maxMetadata, true); err != nil {
		return nil, err
	}
	if !json.Valid(a.Metadata) {
		return nil, fmt.Errorf("%w: create %s wrote a %s that is not JSON", ErrGenerator, target, MetadataJSON)
	}
	if a.Kubeconfig, err = readOutput(dir, target, KubeconfigPath, maxCredential, true); err != nil {
		return nil, err
	}
	if a.KubeadminPassword, err = readOutput(dir, target, KubeadminPasswordPath, maxCredential, true); err != nil {
		return nil, err
	}
	return &a, nil
}

// readOutput reads dir/name; a missing required file is ErrGenerator
// naming it, a missing optional one nil, nil.
func readOutput(dir, target, name string, limit int64, required bool) ([]byte, error) {
	raw, err := readLimited(filepath.Join(dir, name), limit)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !required:
		return nil, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%w: create %s did not write %s", ErrGenerator, target, name)
	case err != nil:
		return nil, fmt.Errorf("%w: create %s: reading %s: %w", ErrGenerator, target, name, err)
	}
	return raw, nil
}

// safeName keeps letters, digits and '-' of s (at most 40) for a directory name.
func safeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if b.Len() >= 40 {
			break
		}
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// oneLine joins the lines of s with "; " so that an error stays one line.
func oneLine(s string) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "; ")
}
