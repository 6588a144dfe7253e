package systemdvm

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/testbed/image"
)

// debs are the two packages under test: the one make package built
// ($RACKBOOT_DEB; without it, one built here as make package would) and an
// upgrade, the same sources rebuilt with a higher version.
type debs struct {
	v1, v2             string // file names in the files directory
	version1, version2 string // Debian versions
	binary2            string // what the upgrade's `rackbootd version` prints
}

// buildDebs puts both packages into dir.
func buildDebs(t *testing.T, dir string) debs {
	t.Helper()
	root, err := image.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	var d debs
	first := os.Getenv("RACKBOOT_DEB")
	if first == "" {
		first = buildDeb(t, root, "1.0.0", "systemd-test-1")
	}
	d.version1 = debField(t, first, "Version")
	d.version2 = d.version1 + "+1"
	d.binary2 = "systemd-test-upgrade"
	second := buildDeb(t, root, d.version2, d.binary2)
	if got := debField(t, second, "Version"); got != d.version2 {
		t.Fatalf("the upgrade package has version %s, want %s", got, d.version2)
	}
	for _, p := range []string{first, second} {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(p)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d.v1, d.v2 = filepath.Base(first), filepath.Base(second)
	return d
}

// buildDeb builds the commands with main.version set to binaryVersion and
// packages them with packaging/build-deb.sh (what make package runs).
func buildDeb(t *testing.T, root, version, binaryVersion string) string {
	t.Helper()
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "bin")
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w -X main.version="+binaryVersion,
		"-o", bin+"/", "./cmd/rackbootd", "./cmd/rackbootctl")
	build.Dir = root
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	pkg := exec.Command(filepath.Join(root, "packaging", "build-deb.sh"), version)
	pkg.Env = append(os.Environ(), "BIN="+bin, "DIST="+filepath.Join(tmp, "dist"))
	out, err := pkg.Output()
	if err != nil {
		t.Fatalf("build-deb.sh %s: %v\n%s", version, err, stderrOf(err))
	}
	return strings.TrimSpace(string(out))
}

func debField(t *testing.T, deb, field string) string {
	t.Helper()
	out, err := exec.Command("dpkg-deb", "-f", deb, field).Output()
	if err != nil {
		t.Fatalf("dpkg-deb -f %s %s: %v\n%s", deb, field, err, stderrOf(err))
	}
	return strings.TrimSpace(string(out))
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}

// The MACs of the two DHCP clients in the VM's client namespace.
const (
	mac0 = "52:54:00:00:00:01"
	mac1 = "52:54:00:00:00:02"
)

// config is /etc/rackboot/rackboot.toml in the VM: full-mode DHCP on br0,
// TFTP, HTTP boot with a default profile whose kernel is 16 MiB (a transfer
// that lasts across a reload), debug logging (one record per DHCP reply).
const config = `[server]
data_dir = "/var/lib/rackboot"
advertise = "10.99.0.1"
http_listen = ":8080"
log_level = "debug"

[dhcp]
mode = "full"
interfaces = ["br0"]
subnet = "10.99.0.0/24"
range = ["10.99.0.100", "10.99.0.110"]
router = "10.99.0.1"
lease_time = "1h"

[tftp]
listen = ":69"
root = "/usr/lib/ipxe"

[[profile]]
name = "discovery"
kernel = "/srv/rackboot/vmlinuz"
initrd = "/srv/rackboot/initrd.img"
cmdline = "console=ttyS0"
macs = []
`

// rackConfig makes the VM a one-appliance rack holding the service address
// 10.99.0.1 on br0 (its own address there becomes 10.99.0.2).
const rackConfig = `
[cluster]
node_id = "rb1"
bind = "10.99.0.2:8300"
bootstrap = ["rb1@10.99.0.2:8300"]
vip = "10.99.0.1/24"
vip_interface = "br0"
`

// writeFiles fills the directory the VM sees on /dev/vdb.
func writeFiles(t *testing.T, dir string) debs {
	t.Helper()
	d := buildDebs(t, dir)
	for name, text := range map[string]string{
		"rackboot.toml":      config,
		"rackboot-rack.toml": strings.Replace(config, `data_dir = "/var/lib/rackboot"`, `data_dir = "/var/lib/rackboot/rack"`, 1) + rackConfig,
		"setup-network.sh":   setupNetwork,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// setupNetwork gives the VM a segment of its own: br0 (10.99.0.1/24) with
// two veth pairs whose other ends, c0 and c1 (mac0, mac1), are in the
// namespace "client", where the DHCP and HTTP clients run.
var setupNetwork = fmt.Sprintf(`set -e
ip netns add client
ip -n client link set lo up
ip link add br0 type bridge
ip addr add 10.99.0.1/24 dev br0
ip link set br0 up
for i in 0 1; do
	ip link add v$i type veth peer name c$i
	ip link set v$i master br0
	ip link set v$i up
	ip link set c$i netns client
done
ip -n client link set c0 address %s
ip -n client link set c1 address %s
ip -n client link set c0 up
ip -n client link set c1 up
mkdir -p /srv/rackboot
head -c 16777216 /dev/urandom >/srv/rackboot/vmlinuz
head -c 4096 /dev/urandom >/srv/rackboot/initrd.img
`, mac0, mac1)
