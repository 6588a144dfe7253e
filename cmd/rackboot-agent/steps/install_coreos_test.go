package steps

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/engine/models"
)

// coreosEnv is an install environment whose live system has the
// coreos-installer stand-in (testdata/coreos-installer), a keyfile in
// its NetworkManager directory and an empty osmet directory; record is where the stand-in writes what
// it got.
func coreosEnv(t *testing.T) (e *installEnv, record string) {
	t.Helper()
	e = newInstallEnv(t, testImage(t), testConfig(1000))
	bin, err := filepath.Abs("testdata/coreos-installer")
	if err != nil {
		t.Fatal(err)
	}
	e.coreosInstaller = bin
	e.networkDir = t.TempDir()
	if err := os.WriteFile(filepath.Join(e.networkDir, "eth0.nmconnection"), []byte("[connection]\nid=eth0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e.osmetDir = t.TempDir() // empty: the live media carries no image
	t.Setenv("OSMET_DIR", e.osmetDir)
	record = filepath.Join(t.TempDir(), "record")
	t.Setenv("RECORD", record)
	return e, record
}

// TestInstallRunsCoreOSInstaller: with coreos-installer in the live
// system the install step runs `coreos-installer install` with the host's
// Ignition in a file, the allowed installer_args, --copy-network (static
// networking), the image URL with --insecure, and the boot device; its
// progress lines become "Writing image to disk NN%"; the file is removed.
func TestInstallRunsCoreOSInstaller(t *testing.T) {
	e, record := coreosEnv(t)
	dev, _ := e.device(1 << 20)
	rep := e.run(e.args(dev, func(a *models.InstallStepArgs) {
		a.InstallerArgs = []string{"--append-karg", "console=ttyS0,115200n8", "--delete-karg=quiet"}
	}))
	if rep.ExitCode != 0 {
		t.Fatalf("install: %d %s", rep.ExitCode, rep.Error)
	}
	var res InstallResult
	if err := json.Unmarshal([]byte(rep.Output), &res); err != nil || res.Installer != "coreos-installer" || res.BootDevice != dev || !res.Reboot {
		t.Errorf("result %s (%v)", rep.Output, err)
	}
	args := strings.Split(strings.TrimSpace(string(readFile(t, record+".args"))), "\n")
	if len(args) < 3 || args[0] != "--ignition-file" {
		t.Fatalf("arguments %q", args)
	}
	want := []string{"--ignition-file", args[1], "--append-karg", "console=ttyS0,115200n8", "--delete-karg=quiet",
		"--copy-network", "--network-dir", e.networkDir, "--image-url", e.url + "/images/disk.img", "--insecure", dev}
	if !slices.Equal(args, want) {
		t.Errorf("coreos-installer install %q\nwant %q", args, want)
	}
	if got := string(readFile(t, record+".ign")); got != testConfig(1000) {
		t.Errorf("the Ignition file held %d bytes, not the host's config", len(got))
	}
	if _, err := os.Stat(args[1]); !os.IsNotExist(err) {
		t.Errorf("the Ignition file %s (holding secrets) was left behind: %v", args[1], err)
	}
	var writing []string
	for _, s := range e.stages {
		if s.CurrentStage == models.HostStageWritingImageToDisk {
			writing = append(writing, s.ProgressInfo)
		}
	}
	if len(writing) < 2 || writing[0] != "0%" || writing[len(writing)-1] != "100%" {
		t.Errorf("Writing image to disk reports %q, want 0%% first and 100%% last", writing)
	}
	if names := e.stageNames(); names[len(names)-1] != string(models.HostStageRebooting) {
		t.Errorf("stages %q", names)
	}
}

// TestInstallCoreOSInstallerFailureIsReported: a failing coreos-installer
// fails the step with its status and last lines as the reason.
func TestInstallCoreOSInstallerFailureIsReported(t *testing.T) {
	e, _ := coreosEnv(t)
	t.Setenv("FAIL", "1")
	dev, _ := e.device(1 << 20)
	rep := e.run(e.args(dev, nil))
	last := e.lastStage()
	if rep.ExitCode == 0 || last.CurrentStage != models.HostStageFailed ||
		!strings.Contains(last.ProgressInfo, "coreos-installer exited with status 1") ||
		!strings.Contains(last.ProgressInfo, "No space left on device") {
		t.Errorf("reply %+v, last stage %+v", rep, last)
	}
}

// TestInstallRefusesInstallerArgsCoreOSInstallerMustNotGet: a flag
// upstream does not allow in installer_args (one that would change the
// image, say) fails the step before coreos-installer runs.
func TestInstallRefusesInstallerArgsCoreOSInstallerMustNotGet(t *testing.T) {
	for _, bad := range [][]string{{"--image-url", "http://elsewhere/x.raw.xz"}, {"--append-karg"}, {"--copy-network=yes"}} {
		e, record := coreosEnv(t)
		dev, _ := e.device(1 << 20)
		rep := e.run(e.args(dev, func(a *models.InstallStepArgs) { a.InstallerArgs = bad }))
		if last := e.lastStage(); rep.ExitCode == 0 || last.CurrentStage != models.HostStageFailed ||
			!strings.Contains(last.ProgressInfo, "installer_args") {
			t.Errorf("%q: reply %+v, last stage %+v", bad, rep, last)
		}
		if _, err := os.Stat(record + ".args"); !os.IsNotExist(err) {
			t.Errorf("%q: coreos-installer ran", bad)
		}
	}
}

// TestCoreOSInstallerStandInKeepsTheCLIContract: the stand-in refuses
// what the real CLI refuses, so the tests above would notice arguments
// the real one rejects.
func TestCoreOSInstallerStandInKeepsTheCLIContract(t *testing.T) {
	coreosEnv(t)
	dev := filepath.Join(t.TempDir(), "vda")
	if err := os.WriteFile(dev, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"install", dev}, 0},
		{[]string{"install", "--offline", "--append-karg=a=b", dev}, 1},         // no osmet: metadata missing
		{[]string{"install", "--offline", "--image-url", "http://x/y", dev}, 0}, // --image-url wins, as in install.rs
		{[]string{"install", "--bogus", dev}, 2},
		{[]string{"install", "--append-karg"}, 2},
		{[]string{"install"}, 2},
		{[]string{"install", dev, dev}, 2},
		{[]string{"iso", dev}, 2},
		{[]string{"install", dev + ".missing"}, 1},
	} {
		code := runStandIn(t, tc.args)
		if code != tc.code {
			t.Errorf("coreos-installer %q: status %d, want %d", tc.args, code, tc.code)
		}
	}
}

func runStandIn(t *testing.T, args []string) int {
	t.Helper()
	cmd := exec.Command("testdata/coreos-installer", args...)
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		t.Fatal(err)
	}
	return 0
}
