package steps_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
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

// A disk that is mounted (here a loop device over a file of the test's,
// with an ext4 mounted from it) is refused and left as it was: the check
// writes over the start of the disk it is given. Then, unmounted, the same
// loop device is measured.
func TestDiskSpeedCheckRefusesMountedDisk(t *testing.T) {
	dev, img := mountedLoop(t)
	before, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	r := steps.NewRunner(steps.Deps{DiskSpeedBytes: 10 * steps.DiskSpeedBlock})
	rep := r.Run(context.Background(), diskSpeedStep(t, models.DiskSpeedCheckRequest{Path: dev, ThresholdMs: 60_000}))
	if rep.ExitCode != steps.ExitFailed || !strings.Contains(rep.Error, "disk in use") {
		t.Fatalf("check on mounted %s: %+v, want refused", dev, rep)
	}
	if after, _ := os.ReadFile(img); string(after) != string(before) {
		t.Fatal("the refused check wrote to the disk")
	}
	run(t, "umount", filepath.Join(filepath.Dir(img), "mnt"))
	rep = r.Run(context.Background(), diskSpeedStep(t, models.DiskSpeedCheckRequest{Path: dev, ThresholdMs: 60_000}))
	if rep.ExitCode != 0 || !strings.Contains(rep.Output, `"path":"`+dev+`"`) {
		t.Fatalf("check on unmounted %s: %+v", dev, rep)
	}
}

// mountedLoop attaches a loop device to a 16 MiB file with an ext4 and
// mounts it under the test's directory (skips unless root with losetup,
// mkfs.ext4 and mount).
func mountedLoop(t *testing.T) (dev, img string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root (loop devices, mount)")
	}
	for _, tool := range []string{"losetup", "mkfs.ext4", "mount", "umount"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s", tool)
		}
	}
	dir := t.TempDir()
	img = filepath.Join(dir, "disk.img")
	if err := os.WriteFile(img, make([]byte, 16<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	run(t, "mkfs.ext4", "-q", "-F", img)
	out, err := exec.Command("losetup", "--find", "--show", img).Output()
	if err != nil {
		t.Skipf("losetup: %v", err)
	}
	dev = strings.TrimSpace(string(out))
	t.Cleanup(func() { _ = exec.Command("losetup", "-d", dev).Run() })
	mnt := filepath.Join(dir, "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, "mount", dev, mnt)
	t.Cleanup(func() { _ = exec.Command("umount", mnt).Run() })
	return dev, img
}

func run(t *testing.T, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}
