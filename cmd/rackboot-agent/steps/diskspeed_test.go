package steps_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/cmd/rackboot-agent/steps"
	"github.com/rackboot/rackboot/engine/models"
)

func diskSpeedStep(t *testing.T, req any) *models.Step {
	t.Helper()
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	return &models.Step{StepID: "installation-disk-speed-check-1", StepType: models.StepTypeInstallationDiskSpeedCheck, Args: []string{string(b)}}
}

// The check writes its blocks with fdatasync to the disk it is given (here
// a file on the test machine's disk) and reports the 99th percentile in
// upstream's DiskSpeedCheckResponse.
func TestDiskSpeedCheckWritesWithFdatasync(t *testing.T) {
	disk := filepath.Join(t.TempDir(), "disk.img")
	if err := os.WriteFile(disk, []byte("partition table here"), 0o600); err != nil {
		t.Fatal(err)
	}
	const size = 100 * steps.DiskSpeedBlock
	r := steps.NewRunner(steps.Deps{DiskSpeedBytes: size})
	rep := r.Run(context.Background(), diskSpeedStep(t, models.DiskSpeedCheckRequest{Path: disk, ThresholdMs: 60_000}))
	if rep.ExitCode != 0 {
		t.Fatalf("reply %+v", rep)
	}
	var out models.DiskSpeedCheckResponse
	if err := json.Unmarshal([]byte(rep.Output), &out); err != nil || out.Path != disk || out.IoSyncDuration < 0 {
		t.Fatalf("output %q: %v", rep.Output, err)
	}
	st, err := os.Stat(disk)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() != size {
		t.Errorf("disk is %d bytes after the check, want the %d written", st.Size(), size)
	}
	b, _ := os.ReadFile(disk)
	if strings.Contains(string(b), "partition table") {
		t.Errorf("the check did not write from the start of the disk")
	}
}

func TestDiskSpeedCheckRefusesBadPaths(t *testing.T) {
	r := steps.NewRunner(steps.Deps{DiskSpeedBytes: steps.DiskSpeedBlock})
	for name, arg := range map[string]any{
		"relative":  models.DiskSpeedCheckRequest{Path: "dev/sda"},
		"unclean":   models.DiskSpeedCheckRequest{Path: "/dev/../etc/passwd"},
		"directory": models.DiskSpeedCheckRequest{Path: t.TempDir()},
		"char dev":  models.DiskSpeedCheckRequest{Path: "/dev/null"},
		"missing":   models.DiskSpeedCheckRequest{Path: "/dev/nonexistent-disk"},
		"not json":  "{",
	} {
		step := diskSpeedStep(t, arg)
		if s, ok := arg.(string); ok {
			step.Args = []string{s}
		}
		if rep := r.Run(context.Background(), step); rep.ExitCode != steps.ExitFailed || rep.Output != "" || rep.Error == "" {
			t.Errorf("%s: reply %+v, want a failure", name, rep)
		}
	}
}

// A step that fails with an OutputError (a disk found too slow) still
// sends its output, so the service records the speed measured.
func TestFailedStepKeepsItsOutput(t *testing.T) {
	out := `{"io_sync_duration":42,"path":"/dev/sda"}`
	r := &steps.Runner{Executors: map[models.StepType]steps.Executor{
		models.StepTypeInstallationDiskSpeedCheck: func(context.Context, []string) (string, error) {
			return "", &steps.OutputError{Output: out, Err: steps.ErrDiskSlow}
		},
	}}
	rep := r.Run(context.Background(), &models.Step{StepID: "x", StepType: models.StepTypeInstallationDiskSpeedCheck})
	if rep.ExitCode != steps.ExitFailed || rep.Output != out || !strings.Contains(rep.Error, "too slow") {
		t.Fatalf("reply %+v", rep)
	}
	if !errors.Is(&steps.OutputError{Err: steps.ErrDiskSlow}, steps.ErrDiskSlow) {
		t.Error("OutputError does not unwrap")
	}
}
