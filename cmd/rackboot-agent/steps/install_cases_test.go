package steps

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine/models"
)

const bootStart, bootEnd = bootFirst * SectorSize, (bootLast + 1) * SectorSize

// checkInstalled asserts the device holds the image outside its boot
// partition, the boot file system holds the config as
// ignition/config.ign (read with debugfs) and still its stamp, and the
// device is untouched past the image.
func checkInstalled(t *testing.T, got, image []byte, config string, devFill byte) {
	t.Helper()
	for _, r := range [][2]int{{0, bootStart}, {bootEnd, len(image)}} {
		if !bytes.Equal(got[r[0]:r[1]], image[r[0]:r[1]]) {
			for i := r[0]; i < r[1]; i++ {
				if got[i] != image[i] {
					t.Fatalf("device differs from the image outside the boot partition first at byte %d", i)
				}
			}
		}
	}
	fs := filepath.Join(t.TempDir(), "boot.ext4")
	if err := os.WriteFile(fs, got[bootStart:bootEnd], 0o600); err != nil {
		t.Fatal(err)
	}
	if b, mode := debugfsRead(t, fs, "ignition/config.ign"); string(b) != config || mode != 0o600 {
		t.Errorf("boot's ignition/config.ign: mode %o, %d bytes, want the config's %d", mode, len(b), len(config))
	}
	if b, _ := debugfsRead(t, fs, "ignition.firstboot"); len(b) != 0 {
		t.Errorf("the stamp changed: %q", b)
	}
	for i, b := range got[len(image):] {
		if b != devFill {
			t.Fatalf("device byte %d past the image changed", len(image)+i)
		}
	}
}

// checkProgress asserts the stages seen are the contract's, in order, with
// rising percentages ending at 100%.
func checkProgress(t *testing.T, e *installEnv) {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	var names []string
	last := -1
	for _, s := range e.stages {
		if len(names) == 0 || names[len(names)-1] != string(s.CurrentStage) {
			names = append(names, string(s.CurrentStage))
		}
		if s.CurrentStage == models.HostStageWritingImageToDisk {
			pct, err := strconv.Atoi(strings.TrimSuffix(s.ProgressInfo, "%"))
			if err != nil || !strings.HasSuffix(s.ProgressInfo, "%") || pct <= last || pct > 100 {
				t.Fatalf("progress %q after %d%%", s.ProgressInfo, last)
			}
			last = pct
		}
	}
	want := []string{"Starting installation", "Installing", "Writing image to disk", "Rebooting"}
	if !slices.Equal(names, want) || last != 100 {
		t.Fatalf("stages %q (last %d%%), want %q ending at 100%%", names, last, want)
	}
}

func TestInstallWritesImageAndIgnition(t *testing.T) {
	requireMount(t)
	cfg := testConfig(1000)
	e := newInstallEnv(t, testImage(t), cfg)
	dev, _ := e.device(6 << 20)
	rep := e.run(e.args(dev, nil))
	if rep.ExitCode != 0 || rep.Error != "" {
		t.Fatalf("reply %+v", rep)
	}
	var res InstallResult
	if err := json.Unmarshal([]byte(rep.Output), &res); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(e.image)
	if !res.Reboot || res.ImageBytes != int64(len(e.image)) || res.ImageSHA256 != hex.EncodeToString(sum[:]) || res.IgnitionBytes != len(cfg) {
		t.Fatalf("output %+v", res)
	}
	checkInstalled(t, readFile(t, dev), e.image, cfg, 0x5a)
	checkProgress(t, e)
	if slices.ContainsFunc(e.ranges, func(r string) bool { return r != "" }) {
		t.Errorf("ranged requests without a dropped connection: %q", e.ranges)
	}
}

// Metadata cleaning: the other disks' partition tables (head, and the
// backup GPT at the end) are zeroed before the image is written; the rest
// of those disks is left alone.
func TestInstallWipesOtherDisks(t *testing.T) {
	requireMount(t)
	e := newInstallEnv(t, testImage(t), testConfig(0))
	dev, _ := e.device(6 << 20)
	other, orig := e.device(2 << 20)
	rep := e.run(e.args(dev, func(a *models.InstallStepArgs) { a.WipeDisks = []string{other} }))
	if rep.ExitCode != 0 || rep.Error != "" {
		t.Fatalf("reply %+v", rep)
	}
	checkInstalled(t, readFile(t, dev), e.image, e.config, 0x5a)
	got := readFile(t, other)
	const head, tail = GPTReservedSectors * SectorSize, (GPTReservedSectors - 1) * SectorSize
	if !bytes.Equal(got[:head], make([]byte, head)) || !bytes.Equal(got[len(got)-tail:], make([]byte, tail)) {
		t.Error("the other disk's partition tables were not zeroed")
	}
	if !bytes.Equal(got[head:len(got)-tail], orig[head:len(orig)-tail]) {
		t.Error("the other disk was changed beyond its partition tables")
	}
	e.logMu.Lock()
	logs := e.logs.String()
	e.logMu.Unlock()
	if !strings.Contains(logs, "partition tables wiped") {
		t.Errorf("no log of the wipe:\n%s", logs)
	}
}

func TestInstallExternalRebootAndUnknownSize(t *testing.T) {
	requireMount(t)
	e := newInstallEnv(t, testImage(t), testConfig(0))
	dev, _ := e.device(len(e.image))
	rep := e.run(e.args(dev, func(a *models.InstallStepArgs) { a.ExternalReboot, a.ImageSize = true, 0 }))
	var res InstallResult
	if rep.ExitCode != 0 || json.Unmarshal([]byte(rep.Output), &res) != nil || res.Reboot {
		t.Fatalf("reply %+v", rep)
	}
	checkInstalled(t, readFile(t, dev), e.image, e.config, 0x5a)
	checkProgress(t, e)
}

func TestInstallResumesDroppedConnection(t *testing.T) {
	requireMount(t)
	e := newInstallEnv(t, testImage(t), testConfig(0))
	e.dropAfter = 1<<20 + 12345
	dev, _ := e.device(len(e.image))
	if rep := e.run(e.args(dev, nil)); rep.ExitCode != 0 {
		t.Fatalf("reply %+v", rep)
	}
	checkInstalled(t, readFile(t, dev), e.image, e.config, 0x5a)
	checkProgress(t, e)
	if len(e.ranges) != 2 || e.ranges[0] != "" || e.ranges[1] != "bytes="+strconv.Itoa(e.dropAfter)+"-" {
		t.Fatalf("image requests' Range headers %q", e.ranges)
	}
}

// failed asserts a failed reply whose reason is also the last stage's.
func failed(t *testing.T, e *installEnv, rep *models.StepReply, reason string) {
	t.Helper()
	if rep.ExitCode != ExitFailed || !strings.Contains(rep.Error, reason) {
		t.Fatalf("reply %+v, want a failure containing %q", rep, reason)
	}
	if last := e.lastStage(); last.CurrentStage != models.HostStageFailed || last.ProgressInfo != rep.Error {
		t.Fatalf("last stage %+v, want Failed with %q", last, rep.Error)
	}
}

// checkWiped asserts no GPT is left at either end of the device.
func checkWiped(t *testing.T, got []byte, imageLen int) {
	t.Helper()
	if !allZero(got[:GPTReservedSectors*SectorSize]) || !allZero(got[len(got)-33*SectorSize:]) ||
		!allZero(got[imageLen-33*SectorSize:imageLen]) {
		t.Fatal("GPT headers not zeroed")
	}
	if _, err := ReadGPT(bytes.NewReader(got), int64(len(got))); err == nil {
		t.Fatal("a GPT is still readable")
	}
}

func allZero(b []byte) bool { return !slices.ContainsFunc(b, func(c byte) bool { return c != 0 }) }

func TestInstallSHA256MismatchWipesGPT(t *testing.T) {
	e := newInstallEnv(t, testImage(t), testConfig(0))
	dev, _ := e.device(8 << 20)
	wrong := strings.Repeat("ab", 32)
	rep := e.run(e.args(dev, func(a *models.InstallStepArgs) { a.ImageSHA256 = wrong }))
	sum := sha256.Sum256(e.image)
	failed(t, e, rep, "disk image sha256 mismatch: got "+hex.EncodeToString(sum[:])+" want "+wrong)
	checkWiped(t, readFile(t, dev), len(e.image))
	if names := e.stageNames(); slices.Contains(names, "Rebooting") {
		t.Fatalf("stages %q", names)
	}
}

// An image that is not a CoreOS metal image — no partition named boot,
// as the testbed's images had with their "ignition" partition — is an
// install error, and the written disk is wiped so that it never boots.
func TestInstallImageWithoutBootPartition(t *testing.T) {
	for name, parts := range map[string][]testPart{
		"root only":          {{"root", 2048, 8000}},
		"ignition partition": {{"ignition", 2048, 2055}, {"root", 2056, 8000}},
	} {
		img := makeGPT(8192, parts)
		e := newInstallEnv(t, img, testConfig(0))
		dev, _ := e.device(len(img))
		rep := e.run(e.args(dev, nil))
		failed(t, e, rep, `the disk image is not a CoreOS metal image: steps: boot partition: the disk image has no GPT partition named "boot"`)
		checkWiped(t, readFile(t, dev), len(img))
		if strings.Contains(rep.Error, ignitionSecret) {
			t.Errorf("%s: the config reached the error", name)
		}
	}
}

// A partition named boot that holds no ext4 fails the install when it is
// mounted; the disk is wiped.
func TestInstallBootPartitionNotExt4(t *testing.T) {
	requireMount(t)
	img := makeGPT(8192, []testPart{{"boot", bootFirst, bootLast}, {"root", rootFirst, rootLast}})
	e := newInstallEnv(t, img, testConfig(0))
	dev, _ := e.device(len(img))
	failed(t, e, e.run(e.args(dev, nil)), `mounting the boot file system (ext4, GPT partition "boot")`)
	checkWiped(t, readFile(t, dev), len(img))
}

// Refusals before the disk is touched leave every byte of it as it was.
func TestInstallRefusalsLeaveDiskUntouched(t *testing.T) {
	for name, tc := range map[string]struct {
		config string
		devLen int
		mod    func(*models.InstallStepArgs)
		reason string
	}{
		"invalid ignition": {config: `{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"relative","contents":{"source":"data:,` + ignitionSecret + `"}}]}}`,
			devLen: 8 << 20, reason: "the host's ignition config is invalid: config is not valid ($.storage.files.0.path: path not absolute"},
		"not ignition": {config: `{"foo":"` + ignitionSecret + `"}`, devLen: 8 << 20, reason: "the host's ignition config is invalid"},
		"image bigger than the device": {config: testConfig(0), devLen: 2 << 20,
			reason: "disk image is 4194304 bytes, larger than boot device"},
		"unknown size bigger than the device": {config: testConfig(0), devLen: 2 << 20,
			mod: func(a *models.InstallStepArgs) { a.ImageSize = 0 }, reason: "disk image is 4194304 bytes, larger than boot device"},
		"size differs from the server's": {config: testConfig(0), devLen: 8 << 20,
			mod: func(a *models.InstallStepArgs) { a.ImageSize = 4 << 19 }, reason: "the server's disk image is 4194304 bytes, the install step says 2097152"},
		"image missing": {config: testConfig(0), devLen: 8 << 20,
			mod: func(a *models.InstallStepArgs) { a.ImageURL += ".missing?token=abc" }, reason: "image server answered 404 Not Found for http://127.0.0.1"},
		"no device": {config: testConfig(0), devLen: 8 << 20,
			mod: func(a *models.InstallStepArgs) { a.BootDevice += "-missing" }, reason: "cannot open boot device"},
	} {
		t.Run(name, func(t *testing.T) {
			e := newInstallEnv(t, testImage(t), tc.config)
			dev, before := e.device(tc.devLen)
			rep := e.run(e.args(dev, tc.mod))
			failed(t, e, rep, tc.reason)
			if strings.Contains(rep.Error, "token=abc") {
				t.Errorf("image URL query in the error: %s", rep.Error)
			}
			if !bytes.Equal(readFile(t, dev), before) {
				t.Fatal("the device was changed")
			}
			if names := e.stageNames(); !slices.Equal(names, []string{"Starting installation", "Installing", "Failed"}) &&
				!slices.Equal(names, []string{"Starting installation", "Installing", "Writing image to disk", "Failed"}) {
				t.Fatalf("stages %q", names)
			}
		})
	}
}

func TestInstallRefusedProgressStops(t *testing.T) {
	e := newInstallEnv(t, testImage(t), testConfig(0))
	e.refuseProgress = 409
	dev, before := e.device(len(e.image))
	rep := e.run(e.args(dev, nil))
	if rep.ExitCode != ExitFailed || !strings.Contains(rep.Error, `reporting stage "Starting installation" failed`) {
		t.Fatalf("reply %+v", rep)
	}
	if !bytes.Equal(readFile(t, dev), before) {
		t.Fatal("the device was changed")
	}
}

func TestInstallBadArguments(t *testing.T) {
	e := newInstallEnv(t, testImage(t), testConfig(0))
	for _, mod := range []func(*models.InstallStepArgs){
		func(a *models.InstallStepArgs) { a.HostID = "h" },
		func(a *models.InstallStepArgs) { a.BootDevice = "vda" },
		func(a *models.InstallStepArgs) { a.BootDevice = "/dev/../etc/passwd" },
		func(a *models.InstallStepArgs) { a.ImageSHA256 = "abc" },
		func(a *models.InstallStepArgs) { a.ImageURL = "file:///etc/shadow" },
		func(a *models.InstallStepArgs) { a.ImageSize = -1 },
		func(a *models.InstallStepArgs) { a.IgnitionURL = "" },
		func(a *models.InstallStepArgs) { a.WipeDisks = []string{"sdb"} },
		func(a *models.InstallStepArgs) { a.WipeDisks = []string{a.BootDevice} },
	} {
		rep := e.run(e.args("/dev/vda", mod))
		if rep.ExitCode != ExitFailed || !strings.Contains(rep.Error, "bad arguments") {
			t.Errorf("reply %+v", rep)
		}
	}
	if len(e.stageNames()) != 0 {
		t.Fatalf("stages reported for bad arguments: %q", e.stageNames())
	}
	r := NewRunner(Deps{})
	rep := r.Run(t.Context(), &models.Step{StepID: "install-2", StepType: models.StepTypeInstall, Args: e.args("/dev/vda", nil)})
	if rep.ExitCode != ExitFailed || !strings.Contains(rep.Error, "no service connection") {
		t.Fatalf("without a service: %+v", rep)
	}
}

func TestInstallRestartsWhenServerIgnoresRange(t *testing.T) {
	requireMount(t)
	e := newInstallEnv(t, testImage(t), testConfig(0))
	e.dropAfter, e.after = 3<<20, "ignore-range"
	dev, _ := e.device(len(e.image))
	if rep := e.run(e.args(dev, nil)); rep.ExitCode != 0 {
		t.Fatalf("reply %+v", rep)
	}
	checkInstalled(t, readFile(t, dev), e.image, e.config, 0x5a)
	if len(e.ranges) != 2 || e.ranges[1] == "" {
		t.Fatalf("image requests' Range headers %q", e.ranges)
	}
}

func TestInstallResumesStalledDownload(t *testing.T) {
	requireMount(t)
	e := newInstallEnv(t, testImage(t), testConfig(0))
	e.dropAfter, e.after, e.stall = 1<<20, "stall", time.Second
	dev, _ := e.device(len(e.image))
	if rep := e.run(e.args(dev, nil)); rep.ExitCode != 0 {
		t.Fatalf("reply %+v", rep)
	}
	checkInstalled(t, readFile(t, dev), e.image, e.config, 0x5a)
	// A loaded machine may stall a later request too; the first three
	// are the drop, the stall and the resumption after it.
	want := []string{"", "bytes=1048576-", "bytes=1052672-"}
	if len(e.ranges) < 3 || !slices.Equal(e.ranges[:3], want) {
		t.Fatalf("image requests' Range headers %q, want %q first", e.ranges, want)
	}
}

func TestInstallGivesUpAndWipes(t *testing.T) {
	e := newInstallEnv(t, testImage(t), testConfig(0))
	e.dropAfter, e.after = 2<<20, "503"
	dev, _ := e.device(8 << 20)
	rep := e.run(e.args(dev, nil))
	failed(t, e, rep, "downloading the disk image failed 6 times in a row: image server answered 503 Service Unavailable")
	checkWiped(t, readFile(t, dev), len(e.image))
	if len(e.ranges) != 7 {
		t.Fatalf("%d image requests, want 1 + 6 attempts", len(e.ranges))
	}
}

func TestInstallArgsAcceptUnknownFields(t *testing.T) {
	// Upstream's InstallCmdRequest fields this agent does not use.
	arg := `{"role":"bootstrap","cluster_id":"c","host_id":"0d8e5b2a-aaaa-bbbb-cccc-ddddeeeeffff","infra_env_id":"i",` +
		`"boot_device":"/dev/disk/by-path/pci-0000:00:05.0","installer_args":["--append-karg","ip=dhcp"],` +
		`"mco_image":"quay.io/x","must_gather_image":"{}","openshift_version":"4.16","check_cvo":true,` +
		`"image_url":"https://10.0.0.1/images/ocp/disk.img","image_sha256":"` + strings.Repeat("AB", 32) + `","ignition_url":"/x"}`
	a, err := parseInstallArgs([]string{arg})
	if err != nil {
		t.Fatal(err)
	}
	if a.Role != "bootstrap" || a.BootDevice != "/dev/disk/by-path/pci-0000:00:05.0" || a.ImageSHA256 != strings.Repeat("ab", 32) ||
		len(a.InstallerArgs) != 2 || a.ImageSize != 0 || a.ExternalReboot {
		t.Fatalf("%+v", a)
	}
}

func TestInstallErrorsWrapTheirSentinels(t *testing.T) {
	err := error(fail(ErrImage, nil, "disk image sha256 mismatch"))
	var f *failure
	if !errors.Is(err, ErrInstall) || !errors.Is(err, ErrImage) || errors.Is(err, ErrDevice) || !errors.As(err, &f) {
		t.Fatalf("%v", err)
	}
	err = fmt.Errorf("wrapped: %w", fail(ErrDevice, os.ErrPermission, "cannot open boot device"))
	if !errors.Is(err, ErrDevice) || !errors.Is(err, os.ErrPermission) || err.Error() != "wrapped: cannot open boot device: permission denied" {
		t.Fatalf("%v", err)
	}
}
