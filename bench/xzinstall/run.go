package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/rackboot/rackboot/cmd/rackboot-agent/steps"
	"github.com/rackboot/rackboot/engine/models"
)

// installer is one contender: it installs the image onto target.
type installer struct {
	name string
	run  func(ctx context.Context, target string) error
}

// service is the install step's service side: the host's Ignition and a
// sink for its progress (the agent sends these to rackbootd).
type service struct{}

const benchIgnition = `{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"/etc/bench","contents":{"source":"data:,xz"}}]}}`

func (service) HostIgnition(context.Context, string) (*models.HostIgnitionParams, error) {
	return &models.HostIgnitionParams{Config: benchIgnition}, nil
}

func (service) PutProgress(context.Context, string, models.HostProgress) error { return nil }

// serve serves the .raw.xz on loopback (net/http's file server:
// sendfile) and returns its URL and a stop function.
func serve(m metal) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, m.xz)
	}), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String() + "/metal.raw.xz", func() { _ = srv.Close() }, nil
}

// installers are the contenders for image m served at url.
func installers(m metal, url string) []installer {
	agent := func(xz string) func(ctx context.Context, target string) error {
		return func(ctx context.Context, target string) error { return agentInstall(ctx, m, url, target, xz) }
	}
	shell := func(script string) func(ctx context.Context, target string) error {
		return func(ctx context.Context, target string) error {
			cmd := exec.CommandContext(ctx, "bash", "-o", "pipefail", "-c", script, "bash", m.xz, url, target)
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("%w: %s", err, out)
			}
			return nil
		}
	}
	return []installer{
		{"rackboot-agent (system xz)", agent("")},
		{"xz -dc | dd", shell(`xz -dc "$1" | dd of="$3" bs=1M conv=fsync status=none`)},
		{"curl | xz -dc | dd", shell(`curl -sSf "$2" | xz -dc | dd of="$3" bs=1M conv=fsync status=none`)},
		{"rackboot-agent (Go decoder)", agent("none")},
	}
}

// agentInstall runs the install step through steps.Runner as
// rackboot-agent runs it, onto target, decompressing with xz ("": the
// system's, "none": the Go decoder).
func agentInstall(ctx context.Context, m metal, url, target, xz string) error {
	args, err := json.Marshal(models.InstallStepArgs{Role: "master", ClusterID: "c0ffee00-1111-4222-8333-444455556666",
		HostID: "b0b0b0b0-1111-4222-8333-444455556666", InfraEnvID: "1e1e1e1e-1111-4222-8333-444455556666",
		BootDevice: target, ImageURL: url, ImageSHA256: m.xzSHA256, ImageSize: m.xzSize,
		IgnitionURL: "http://127.0.0.1/ignition", ExternalReboot: true})
	if err != nil {
		return err
	}
	empty, err := os.MkdirTemp("", "xzinstall-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(empty)
	r := steps.NewRunner(steps.Deps{Install: service{}, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		CoreOSInstaller: "none", XZ: xz, NetworkDir: empty, OsmetDir: empty})
	rep := r.Run(ctx, &models.Step{StepID: "install-1", StepType: models.StepTypeInstall, Args: []string{string(args)}})
	if rep.ExitCode != 0 {
		return fmt.Errorf("install step: exit %d: %s", rep.ExitCode, rep.Error)
	}
	var res steps.InstallResult
	if err := json.Unmarshal([]byte(rep.Output), &res); err != nil || res.ImageBytes != m.rawSize {
		return fmt.Errorf("install step: output %s (%v), want %d bytes written", rep.Output, err, m.rawSize)
	}
	return nil
}

// check verifies that target holds the raw image outside the boot
// partition (which the agent edits).
func check(m metal, target string) error {
	f, err := os.Open(target)
	if err != nil {
		return err
	}
	defer f.Close()
	sum, err := sumOutside(f, m)
	if err != nil {
		return err
	}
	if sum != m.rawSHA256OutsideBoot {
		return fmt.Errorf("the target does not hold the raw image (sha256 outside boot %.12s…, want %.12s…)", sum, m.rawSHA256OutsideBoot)
	}
	return nil
}

// loopDevice attaches a loop device to file (losetup) and returns it and
// its detach function.
func loopDevice(ctx context.Context, file string) (string, func(), error) {
	out, err := exec.CommandContext(ctx, "losetup", "--find", "--show", file).Output()
	if err != nil {
		return "", nil, fmt.Errorf("xzinstall: losetup: %w", err)
	}
	dev := strings.TrimSpace(string(out))
	return dev, func() { _ = exec.Command("losetup", "-d", dev).Run() }, nil
}
