package installbed

import (
	"github.com/rackboot/rackboot/testbed/coreosimage"

	"embed"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// roles holds the user's role Ignition configs (generator "user-configs"):
// each writes /etc/rackboot-role and enables a unit that prints
// "RACKBOOT-ROLE <role> <hostname>" on the installed system's console.
//
//go:embed roles/master.ign roles/worker.ign
var roles embed.FS

// Thresholds of the testbed profile: what the bed's small VMs pass with
// (upstream's minimums are far above any TCG VM, and a TCG guest's
// fdatasync on a file-backed disk of a busy machine is far slower than
// upstream's 10 ms installation-disk-speed limit).
const (
	ThresholdsProfile = "testbed-small-vms"
	// DiskSpeedThresholdMs is the profile's installation-disk-speed limit.
	DiskSpeedThresholdMs = "2000"
	thresholds           = `[image_set.thresholds]
profile = "` + ThresholdsProfile + `"
installation_disk_speed_threshold_ms = ` + DiskSpeedThresholdMs + `
master = { cpu_cores = 2, memory_mib = 1024, disk_gb = 20 }
worker = { cpu_cores = 1, memory_mib = 1024, disk_gb = 20 }
single_node = { cpu_cores = 2, memory_mib = 1024, disk_gb = 20 }
`
)

// InstallTimeout is the installation timeout of the config: TCG VMs on a
// busy 2-core machine are slow, and it only ends a stuck installation.
const InstallTimeout = "45m"

// RoleConfig returns the user role config of role (master or worker).
func RoleConfig(role string) ([]byte, error) { return roles.ReadFile("roles/" + role + ".ign") }

// WriteRoleConfigs writes the user role configs (master.ign, worker.ign)
// into <dir>/roles, an image set's role_ignition_dir, and returns that
// directory.
func WriteRoleConfigs(dir string) (string, error) {
	roleDir := filepath.Join(dir, "roles")
	if err := os.MkdirAll(roleDir, 0o755); err != nil {
		return "", err
	}
	for _, r := range []string{"master", "worker"} {
		raw, err := RoleConfig(r)
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(roleDir, r+".ign"), raw, 0o644); err != nil {
			return "", err
		}
	}
	return roleDir, nil
}

// writeConfig writes the role configs, the openshift-install stand-in and
// rackboot.toml into the bed's directory and returns the config's path.
func (b *Bed) writeConfig() (string, error) {
	roleDir, err := WriteRoleConfigs(b.Dir)
	if err != nil {
		return "", err
	}
	generator := "generator = \"user-configs\"\nrole_ignition_dir = " + fmt.Sprintf("%q", roleDir)
	if b.opts.Generator == GeneratorOpenShiftInstall {
		bin, err := writeOpenShiftInstall(b.Dir)
		if err != nil {
			return "", err
		}
		generator = "generator = \"openshift-install\"\nopenshift_install = " + fmt.Sprintf("%q", bin)
	}
	set := coreosimage.ImageSet{Name: ImageSetName, Version: "4.16", Mirror: b.opts.Mirror, Extra: generator + "\n" + thresholds}
	var res strings.Builder
	for _, n := range b.opts.Nodes {
		fmt.Fprintf(&res, "\n[[dhcp.reservation]]\nmac = %q\nip = %q\nhostname = %q\n", n.MAC, n.IP, n.Name)
	}
	toml := fmt.Sprintf(`[server]
data_dir = %q
advertise = %q
http_listen = "%s:8080"
log_level = "debug"
agent_dir = %q

[dhcp]
mode = "full"
interfaces = [%q]
subnet = "10.99.0.0/24"
range = ["10.99.0.100", "10.99.0.200"]
router = %q
dns = [%q]
lease_time = "1h"
%s
[tftp]
listen = ":69"
root = "/usr/lib/ipxe"

[engine]
default_infra_env = %q
monitor_interval = "2s"
install_timeout = %q

# The cluster boots and installs this image set: the CoreOS-shaped live
# images and metal raw.xz of the testbed's stream, and the role Ignition
# of the generator below. Its hosts are validated against the testbed
# thresholds.
%s
# The API client (rackbootctl) runs inside the namespace, not on loopback.
[api]
admin_remote = true
`, filepath.Join(b.Dir, "state"), ServerIP, ServerIP, b.opts.AgentDir, Bridge, ServerIP, ServerIP, res.String(),
		InfraEnvName, InstallTimeout, set.TOML())
	path := filepath.Join(b.Dir, "rackboot.toml")
	return path, os.WriteFile(path, []byte(toml), 0o644)
}

// writeOpenShiftInstall writes the stand-in openshift-install into dir and
// returns its path. It honours the contract of docs/install-generators.md
// with the bed's role configs (bootstrap.ign is master's) and writes the
// metadata and the credentials a real one would: a kubeconfig for the
// cluster's API and a random kubeadmin password.
func writeOpenShiftInstall(dir string) (string, error) {
	master, err := RoleConfig("master")
	if err != nil {
		return "", err
	}
	worker, err := RoleConfig("worker")
	if err != nil {
		return "", err
	}
	script := `#!/bin/sh
# openshift-install stand-in of the rackboot install testbed.
set -eu
[ $# -eq 4 ] && [ "$1" = create ] && [ "$3" = --dir ] || { echo "usage: create TARGET --dir DIR" >&2; exit 64; }
target=$2 dir=$4
ic=$dir/install-config.yaml
[ -f "$ic" ] || { echo "no install-config.yaml in $dir" >&2; exit 65; }
name=$(sed -n '/^metadata:/{n;s/^  name: //p;}' "$ic")
domain=$(sed -n 's/^baseDomain: //p' "$ic")
master() { cat <<'RACKBOOT_MASTER_EOF'
` + strings.TrimSpace(string(master)) + `
RACKBOOT_MASTER_EOF
}
worker() { cat <<'RACKBOOT_WORKER_EOF'
` + strings.TrimSpace(string(worker)) + `
RACKBOOT_WORKER_EOF
}
case $target in
ignition-configs)
	master >"$dir/bootstrap.ign"
	master >"$dir/master.ign"
	worker >"$dir/worker.ign" ;;
single-node-ignition-config)
	master >"$dir/bootstrap-in-place-for-live-iso.ign"
	worker >"$dir/worker.ign" ;;
*) echo "unsupported target $target" >&2; exit 64 ;;
esac
printf '{"clusterName":"%s","infraID":"%s-testbed"}\n' "$name" "$name" >"$dir/metadata.json"
mkdir -p "$dir/auth"
token=$(head -c 24 /dev/urandom | base64 | tr -d '/+=\n')
cat >"$dir/auth/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: $name
  cluster:
    server: https://api.$name.$domain:6443
users:
- name: admin
  user:
    token: $token
contexts:
- name: admin
  context:
    cluster: $name
    user: admin
current-context: admin
EOF
head -c 18 /dev/urandom | base64 | tr -d '/+=\n' >"$dir/auth/kubeadmin-password"
`
	path := filepath.Join(dir, "openshift-install")
	return path, os.WriteFile(path, []byte(script), 0o755)
}
