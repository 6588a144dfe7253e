package steps

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/rackboot/rackboot/boot/installerargs"
	"github.com/rackboot/rackboot/engine/models"
)

// CoreOS install: when the live environment has coreos-installer (every
// RHCOS and FCOS live image does), the install step runs it as upstream's
// assisted-installer does, instead of writing the image itself:
//
//	coreos-installer install --ignition-file <tmp> [installer_args...]
//	    [--copy-network] --image-url <image_url> --insecure <boot_device>
//
// installer_args may hold only the flags upstream allows
// (boot/installerargs); --copy-network is added when the live system has
// NetworkManager keyfiles (static networking); --insecure because
// rackbootd's image carries no GPG signature. When the live media carries
// the image (an osmet file in /run/coreos-installer/osmet, as an RHCOS or
// FCOS live ISO has), --offline takes the place of --image-url and
// --insecure: coreos-installer rebuilds the metal image from the live
// root, nothing is downloaded, and the installed OS is the live one's
// version, as upstream's installer does. Its "(NN%)" progress becomes
// Writing image to disk NN%.

// DefaultNetworkDir is where a live system keeps its NetworkManager
// keyfiles (coreos-installer's --network-dir default).
const DefaultNetworkDir = "/etc/NetworkManager/system-connections"

// DefaultOsmetDir is where coreos-installer looks for the live media's
// image (its OSMET_FILES_DIR).
const DefaultOsmetDir = "/run/coreos-installer/osmet"

var progressPercent = regexp.MustCompile(`\((\d{1,3})%\)`)

// coreosInstaller is the coreos-installer to run, or "".
func (d Deps) coreosInstaller() string {
	switch d.CoreOSInstaller {
	case "none":
		return ""
	case "":
		p, err := exec.LookPath("coreos-installer")
		if err != nil {
			return ""
		}
		return p
	}
	return d.CoreOSInstaller
}

// coreosArgs is coreos-installer's command line for ignPath.
func (in *installer) coreosArgs(ignPath string) ([]string, error) {
	args := []string{"install", "--ignition-file", ignPath}
	extra, err := checkInstallerArgs(in.args.InstallerArgs)
	if err != nil {
		return nil, err
	}
	args = append(args, extra...)
	dir := in.deps.NetworkDir
	if dir == "" {
		dir = DefaultNetworkDir
	}
	if !slices.Contains(extra, "--copy-network") && hasKeyfiles(dir) {
		args = append(args, "--copy-network")
	}
	if in.deps.NetworkDir != "" && slices.Contains(args, "--copy-network") && !slices.Contains(extra, "--network-dir") {
		args = append(args, "--network-dir", in.deps.NetworkDir)
	}
	if in.deps.offlineImage() {
		return append(args, "--offline", in.args.BootDevice), nil
	}
	return append(args, "--image-url", in.args.ImageURL, "--insecure", in.args.BootDevice), nil
}

// offlineImage reports whether the live media carries an image
// coreos-installer can install offline: a regular *.osmet file in the
// osmet directory.
func (d Deps) offlineImage() bool {
	dir := d.OsmetDir
	if dir == "" {
		dir = DefaultOsmetDir
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*.osmet"))
	for _, n := range names {
		if fi, err := os.Stat(n); err == nil && fi.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// checkInstallerArgs passes on the allowed flags of installer_args.
func checkInstallerArgs(a []string) ([]string, error) {
	if err := installerargs.Check(a); err != nil {
		return nil, final(ErrInstall, nil, "%s", err.Error())
	}
	return slices.Clone(a), nil
}

// hasKeyfiles reports whether dir holds a NetworkManager keyfile.
func hasKeyfiles(dir string) bool {
	m, _ := filepath.Glob(filepath.Join(dir, "*.nmconnection"))
	return len(m) > 0
}

// runCoreOSInstaller installs with coreos-installer at bin.
func (in *installer) runCoreOSInstaller(ctx context.Context, bin string, ign []byte) (*InstallResult, error) {
	f, err := os.CreateTemp("", "rackboot-install-*.ign")
	if err != nil {
		return nil, fail(ErrInstall, err, "writing the ignition file for coreos-installer failed")
	}
	defer os.Remove(f.Name())
	_, err = f.Write(ign)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fail(ErrInstall, err, "writing the ignition file for coreos-installer failed")
	}
	args, err := in.coreosArgs(f.Name())
	if err != nil {
		return nil, err
	}
	offline := slices.Contains(args, "--offline")
	in.log.Info("running coreos-installer", "device", in.args.BootDevice, "offline", offline, "args", strings.Join(args, " "))
	if err := in.execInstaller(ctx, bin, args); err != nil {
		return nil, err
	}
	if err := in.percent(ctx, 100); err != nil {
		return nil, err
	}
	if err := in.stage(ctx, models.HostStageRebooting, ""); err != nil {
		return nil, err
	}
	return &InstallResult{BootDevice: in.args.BootDevice, IgnitionBytes: len(ign), Installer: "coreos-installer",
		Offline: offline, Reboot: !in.args.ExternalReboot}, nil
}

// execInstaller runs it, turning its progress into reports; a failure
// names its exit status and last lines.
func (in *installer) execInstaller(ctx context.Context, bin string, args []string) error {
	pr, pw := io.Pipe()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		pw.Close()
		return fail(ErrInstall, err, "starting coreos-installer failed")
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait(); pw.Close() }()
	last, perr := in.followProgress(ctx, pr)
	if perr != nil { // the installation was cancelled: stop writing
		_ = cmd.Process.Kill()
	}
	pr.CloseWithError(io.EOF) // the installer's writes fail from here on
	err := <-done
	if perr != nil {
		return perr
	}
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return fail(ErrInstall, nil, "coreos-installer exited with status %d: %s", ee.ExitCode(), strings.Join(last, " | "))
		}
		return fail(ErrInstall, err, "coreos-installer failed")
	}
	return nil
}

// followProgress reads the installer's output, lines ended by \n or \r:
// a "(NN%)" is reported, the last three other lines are kept.
func (in *installer) followProgress(ctx context.Context, r io.Reader) ([]string, error) {
	sc := bufio.NewScanner(r)
	sc.Split(crlfLines)
	var last []string
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if m := progressPercent.FindStringSubmatch(line); m != nil {
			if pct, _ := strconv.Atoi(m[1]); pct <= 100 {
				if err := in.percent(ctx, pct); err != nil {
					return last, err
				}
			}
			continue
		}
		in.log.Info("coreos-installer", "line", line)
		if last = append(last, line); len(last) > 3 {
			last = last[1:]
		}
	}
	return last, nil
}

// crlfLines splits at \n or \r (coreos-installer redraws its progress
// line with \r).
func crlfLines(data []byte, atEOF bool) (int, []byte, error) {
	if i := bytes.IndexAny(data, "\r\n"); i >= 0 {
		return i + 1, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}
