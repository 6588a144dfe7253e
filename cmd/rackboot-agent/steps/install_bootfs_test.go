package steps

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/engine/models"
)

const blsEntry = "title Fedora CoreOS 42.20250101.3.0 (ostree)\nversion 1\n" +
	"options mitigations=auto,nosmt ignition.platform.id=metal $ignition_firstboot console=tty0 quiet\n" +
	"linux /ostree/fedora-coreos-abc/vmlinuz\ninitrd /ostree/fedora-coreos-abc/initramfs.img\n"

// bootTree is a CoreOS boot file system's files: the first-boot stamp and
// one BLS entry.
func bootTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range map[string]string{
		"ignition.firstboot":                         "",
		"loader/entries/ostree-1-fedora-coreos.conf": blsEntry,
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// bootfsFiles puts the Ignition, the kernel arguments and the keyfiles
// where coreos-installer puts them.
func TestBootfsFilesAsCoreOSInstaller(t *testing.T) {
	root := bootTree(t)
	netDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(netDir, "eth0.nmconnection"), []byte("[connection]\nid=eth0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e, err := coreosEdits([]byte(testConfig(100)), []string{"--append-karg", "console=ttyS0,115200n8", "--delete-karg=quiet",
		"--copy-network"}, netDir)
	if err != nil {
		t.Fatal(err)
	}
	if err := bootfsFiles(root, e); err != nil {
		t.Fatal(err)
	}
	checkBootfs(t, func(p string) ([]byte, os.FileMode) {
		fi, err := os.Stat(filepath.Join(root, p))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		b, _ := os.ReadFile(filepath.Join(root, p))
		return b, fi.Mode().Perm()
	})
}

// checkBootfs checks a boot file system read through read.
func checkBootfs(t *testing.T, read func(path string) ([]byte, os.FileMode)) {
	t.Helper()
	if b, mode := read("ignition/config.ign"); string(b) != testConfig(100) || mode != 0o600 {
		t.Errorf("ignition/config.ign: mode %o, %d bytes", mode, len(b))
	}
	if _, mode := read("ignition"); mode != 0o700 {
		t.Errorf("ignition/: mode %o, want 0700", mode)
	}
	want := strings.Replace(blsEntry, "console=tty0 quiet", "console=tty0 console=ttyS0,115200n8", 1)
	if b, _ := read("loader/entries/ostree-1-fedora-coreos.conf"); string(b) != want {
		t.Errorf("BLS entry:\n%s\nwant:\n%s", b, want)
	}
	if b, mode := read("coreos-firstboot-network/eth0.nmconnection"); string(b) != "[connection]\nid=eth0\n" || mode != 0o600 {
		t.Errorf("keyfile: mode %o %q", mode, b)
	}
}

// TestInstallCoreOSMetalImageWithoutCoreOSInstaller: without
// coreos-installer the agent writes a CoreOS-shaped metal image (GPT with
// BIOS-BOOT, EFI-SYSTEM, an ext4 boot made by mkfs.ext4, root; served
// .raw.xz) and finishes it as coreos-installer does, on the real boot file
// system (loop device, mount); debugfs reads the result back. Root only.
func TestInstallCoreOSMetalImageWithoutCoreOSInstaller(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounts a loop device: run as root")
	}
	for _, tool := range []string{"mkfs.ext4", "debugfs", "xz"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed (e2fsprogs, xz-utils)", tool)
		}
	}
	const bootFirst, bootLast = 6144, 6144 + 16384 - 1 // 8 MiB
	raw := makeGPT(26624, []testPart{{"BIOS-BOOT", 2048, 4095}, {"EFI-SYSTEM", 4096, 6143},
		{"boot", bootFirst, bootLast}, {"root", bootLast + 1, 26624 - 40}})
	fs := filepath.Join(t.TempDir(), "boot.ext4")
	if err := os.WriteFile(fs, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(fs, (bootLast-bootFirst+1)*SectorSize); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mkfs.ext4", "-q", "-F", "-L", "boot", "-d", bootTree(t), fs).CombinedOutput(); err != nil {
		t.Fatalf("mkfs.ext4: %v %s", err, out)
	}
	copy(raw[bootFirst*SectorSize:], readFile(t, fs))

	e, record := coreosEnv(t) // keyfile in the network dir, RECORD for the stand-in
	e.coreosInstaller = "none"
	e.image, e.config = compressWith(t, "xz", raw), testConfig(100)
	dev, _ := e.device(16 << 20)
	rep := e.run(e.args(dev, func(a *models.InstallStepArgs) {
		a.InstallerArgs = []string{"--append-karg", "console=ttyS0,115200n8", "--delete-karg=quiet"}
	}))
	if rep.ExitCode != 0 {
		t.Fatalf("install: %+v", rep)
	}
	var res InstallResult
	if err := json.Unmarshal([]byte(rep.Output), &res); err != nil || res.ImageBytes != int64(len(raw)) || res.Installer != "" {
		t.Errorf("result %s", rep.Output)
	}
	if _, err := os.Stat(record + ".args"); !os.IsNotExist(err) {
		t.Error("coreos-installer ran")
	}
	disk := readFile(t, dev)
	if !bytes.Equal(disk[:bootFirst*SectorSize], raw[:bootFirst*SectorSize]) {
		t.Error("the partitions before boot differ from the image")
	}
	part := filepath.Join(t.TempDir(), "boot.ext4")
	if err := os.WriteFile(part, disk[bootFirst*SectorSize:(bootLast+1)*SectorSize], 0o600); err != nil {
		t.Fatal(err)
	}
	checkBootfs(t, func(p string) ([]byte, os.FileMode) { return debugfsRead(t, part, p) })
}

// debugfsRead reads a file's contents and permission bits from the ext4
// image fs with debugfs (no mount).
func debugfsRead(t *testing.T, fs, path string) ([]byte, os.FileMode) {
	t.Helper()
	out, err := exec.Command("debugfs", "-R", "stat /"+path, fs).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Mode:") {
		t.Fatalf("debugfs stat %s: %v %s", path, err, out)
	}
	var mode uint32
	_, rest, _ := strings.Cut(string(out), "Mode:")
	if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%o", &mode); err != nil {
		t.Fatalf("debugfs stat %s: mode in %q: %v", path, rest, err)
	}
	data, err := exec.Command("debugfs", "-R", "cat /"+path, fs).Output()
	if err != nil {
		t.Fatalf("debugfs cat %s: %v", path, err)
	}
	return data, os.FileMode(mode).Perm()
}
