package steps

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestInstallCoreOSInstallerOfflineFromTheLiveMedia: when the live media
// carries the image (an osmet file in /run/coreos-installer/osmet, as on
// an RHCOS or FCOS live ISO), coreos-installer runs with --offline in
// place of --image-url and --insecure, the image server is never asked,
// and the result says so.
func TestInstallCoreOSInstallerOfflineFromTheLiveMedia(t *testing.T) {
	e, record := coreosEnv(t)
	osmet := filepath.Join(e.osmetDir, "rhcos-4.16.3-x86_64-metal.x86_64.osmet")
	if err := os.WriteFile(osmet, []byte("OSMET"), 0o644); err != nil {
		t.Fatal(err)
	}
	dev, _ := e.device(1 << 20)
	rep := e.run(e.args(dev, nil))
	if rep.ExitCode != 0 {
		t.Fatalf("install: %d %s", rep.ExitCode, rep.Error)
	}
	args := strings.Split(strings.TrimSpace(string(readFile(t, record+".args"))), "\n")
	want := []string{"--ignition-file", args[1], "--copy-network", "--network-dir", e.networkDir, "--offline", dev}
	if !slices.Equal(args, want) {
		t.Errorf("coreos-installer install %q\nwant %q", args, want)
	}
	var res InstallResult
	if err := json.Unmarshal([]byte(rep.Output), &res); err != nil || !res.Offline || res.Installer != "coreos-installer" {
		t.Errorf("result %s (%v), want offline", rep.Output, err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.ranges) != 0 {
		t.Errorf("the image was requested %d times in an offline install", len(e.ranges))
	}
}

// TestInstallCoreOSInstallerOnlineWithoutOsmetFile: a directory, or
// files that are not *.osmet, in the osmet directory are no image; the
// install downloads image_url as before.
func TestInstallCoreOSInstallerOnlineWithoutOsmetFile(t *testing.T) {
	e, record := coreosEnv(t)
	if err := os.Mkdir(filepath.Join(e.osmetDir, "old.osmet"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.osmetDir, "README"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	dev, _ := e.device(1 << 20)
	rep := e.run(e.args(dev, nil))
	if rep.ExitCode != 0 {
		t.Fatalf("install: %d %s", rep.ExitCode, rep.Error)
	}
	args := string(readFile(t, record+".args"))
	if strings.Contains(args, "--offline") || !strings.Contains(args, "--image-url\n"+e.url+"/images/disk.img\n--insecure\n") {
		t.Errorf("coreos-installer install %q, want --image-url and no --offline", args)
	}
	var res InstallResult
	if err := json.Unmarshal([]byte(rep.Output), &res); err != nil || res.Offline {
		t.Errorf("result %s (%v), want not offline", rep.Output, err)
	}
}
