package config

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestImageSetInstall: disk_image gets its size and (when not given) its
// sha256 at load; generator settings are checked; install_timeout
// defaults to upstream's 20 minutes.
func TestImageSetInstall(t *testing.T) {
	dir := t.TempDir()
	disk := []byte("a raw disk image, small for the test")
	for f, data := range map[string][]byte{"vmlinuz": []byte("x"), "initrd.img": []byte("x"), "disk.img": disk,
		"openshift-install": []byte("#!/bin/sh\n")} {
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "roles"), 0o755); err != nil {
		t.Fatal(err)
	}
	doc := func(engine, set string) string {
		return `
[server]
advertise = "10.99.0.1"
[tftp]
enabled = false
[engine]
` + engine + `
[[profile]]
name = "discovery"
kernel = "vmlinuz"
initrd = "initrd.img"
[[image_set]]
name = "testbed"
profile = "discovery"
` + set
	}
	path := filepath.Join(dir, "rackboot.toml")
	cfg, err := Parse(path, []byte(doc("", `disk_image = "disk.img"
role_ignition_dir = "roles"
kernel_sha256 = "`+strings.Repeat("AB", 32)+`"`)), "/")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(disk)
	in := cfg.ImageSets[0].Install
	if in.DiskImage != filepath.Join(dir, "disk.img") || in.DiskImageSHA256 != hex.EncodeToString(sum[:]) ||
		in.DiskImageSize != int64(len(disk)) || in.RoleIgnitionDir != filepath.Join(dir, "roles") ||
		in.Generator != GeneratorUserConfigs || in.KernelSHA256 != strings.Repeat("ab", 32) {
		t.Errorf("install %+v", in)
	}
	if cfg.Engine.InstallTimeout != 20*time.Minute {
		t.Errorf("install_timeout default %s", cfg.Engine.InstallTimeout)
	}
	given := strings.Repeat("0", 64)
	cfg, err = Parse(path, []byte(doc(`install_timeout = "45m"`, `disk_image = "disk.img"
disk_image_sha256 = "`+given+`"
generator = "openshift-install"
openshift_install = "openshift-install"
release_image = "quay.io/openshift-release-dev/ocp-release:4.17.0-x86_64"`)), "/")
	if err != nil {
		t.Fatal(err)
	}
	if in := cfg.ImageSets[0].Install; in.DiskImageSHA256 != given || in.OpenShiftInstall != filepath.Join(dir, "openshift-install") ||
		cfg.Engine.InstallTimeout != 45*time.Minute {
		t.Errorf("openshift-install set %+v, timeout %s", in, cfg.Engine.InstallTimeout)
	}
	for set, want := range map[string]string{
		`disk_image = "disk.img"`:                                     "role_ignition_dir",
		`disk_image = "nope.img"` + "\nrole_ignition_dir = \"roles\"": "disk_image",
		`generator = "magic"`:                                         "generator",
		`generator = "openshift-install"`:                             "openshift_install",
		`disk_image_sha256 = "xyz"`:                                   "disk_image_sha256",
		`role_ignition_dir = "missing"`:                               "role_ignition_dir",
		`release_image = "bad image ref"`:                             "release_image",
	} {
		if _, err := Parse(path, []byte(doc("", set)), "/"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error naming %s", set, err, want)
		}
	}
	if _, err := Parse(path, []byte(doc(`install_timeout = "10s"`, "")), "/"); err == nil || !strings.Contains(err.Error(), "install_timeout") {
		t.Errorf("short install_timeout: %v", err)
	}
}
