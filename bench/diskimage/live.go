package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/rackboot/rackboot/bench/internal/peers"
	"github.com/rackboot/rackboot/bench/internal/proc"
	"github.com/rackboot/rackboot/bench/internal/topo"
	"github.com/rackboot/rackboot/engine/api"
)

// The live rootfs route (-route rootfs): rackbootd serves the image as the
// live rootfs of a CoreOS image set declared with live_iso and live_rootfs
// (the AgentServiceConfig osImages pair), and the clients fetch the URL
// that a host's iPXE script names in coreos.live.rootfs_url, as a booting
// CoreOS live initramfs does.

// benchMAC is the host whose iPXE script names the rootfs URL.
const benchMAC = "52-54-00-dd-ff-01"

// makeLiveISO writes a CoreOS-shaped live ISO (xorriso, as
// boot/coreos/coreostest builds its fixture) with images/pxeboot/
// {vmlinuz,initrd.img,rootfs.img}, the Ignition embed area and
// coreos/igninfo.json. Its rootfs.img is a small stand-in: rackbootd
// serves live_rootfs, the file beside the ISO, which is the image.
func makeLiveISO(workDir string) (string, error) {
	src := filepath.Join(workDir, "iso-tree")
	tree := map[string]string{
		"images/pxeboot/vmlinuz":    strings.Repeat("k", 64<<10),
		"images/pxeboot/initrd.img": strings.Repeat("i", 64<<10),
		"images/pxeboot/rootfs.img": strings.Repeat("r", 4096),
		"images/ignition.img":       strings.Repeat("\x00", 256<<10),
		"coreos/igninfo.json":       `{"file":"images/ignition.img"}`,
	}
	for name, data := range tree {
		p := filepath.Join(src, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			return "", err
		}
	}
	iso := filepath.Join(workDir, "live.iso")
	cmd := exec.Command("xorriso", "-as", "mkisofs", "-quiet", "-R", "-J", "-V", "fedora-coreos-bench", "-o", iso, src)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("diskimage: xorriso (Debian package xorriso): %w: %s", err, out)
	}
	return iso, nil
}

// startLive starts rackbootd with a CoreOS image set whose live rootfs is
// the image, the infra-env "bench" every MAC boots, and agent_dir (the
// discovery Ignition of a CoreOS image set names rackboot-agent).
func startLive(ctx context.Context, pair *topo.Pair, dir string, rb peers.Rackbootd, img image, agentDir string) (*proc.Proc, error) {
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		return nil, err
	}
	iso, err := makeLiveISO(dir)
	if err != nil {
		return nil, err
	}
	if agentDir, err = filepath.Abs(agentDir); err != nil {
		return nil, err
	}
	conf := strings.Replace(rb.Config(dir), "[server]\n", fmt.Sprintf("[server]\nagent_dir = %q\n", agentDir), 1) +
		fmt.Sprintf(`
[[image_set]]
name = "bench"
cpu_arch = "x86_64"
live_iso = %q
live_rootfs = %q
rootfs_sha256 = %q

[engine]
default_infra_env = "bench"

# The harness creates the infra-env from the client namespace.
[api]
admin_remote = true
`, iso, img.path, img.sha256)
	path := filepath.Join(dir, "rackboot.toml")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		return nil, err
	}
	return proc.Start(ctx, pair.Server, "rackbootd", filepath.Join(dir, "rackbootd.log"), nil, rb.Bin, "--config", path)
}

// liveRootfsURL creates the infra-env "bench" (once) and returns the
// rootfs URL of benchMAC's iPXE script, both asked with curl from the
// client namespace.
func liveRootfsURL(ctx context.Context, pair *topo.Pair, dataDir string) (string, error) {
	tok, err := os.ReadFile(filepath.Join(dataDir, "admin-token"))
	if err != nil {
		return "", fmt.Errorf("diskimage: admin token: %w", err)
	}
	base := fmt.Sprintf("http://%s:%d", topo.ServerIP, peers.RackbootdHTTPPort)
	body, _ := json.Marshal(map[string]string{"name": "bench", "pull_secret": `{"auths":{}}`, "cpu_architecture": "x86_64"})
	out, err := pair.Client.Command(ctx, "curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}",
		"-H", "Authorization: Bearer "+strings.TrimSpace(string(tok)), "-H", "Content-Type: application/json",
		"--data-binary", string(body), base+api.BasePath+"/infra-envs").Output()
	if err != nil || (string(out) != "201" && string(out) != "409") {
		return "", fmt.Errorf("diskimage: creating the infra-env: %s %v", out, err)
	}
	script, err := pair.Client.Command(ctx, "curl", "-sSf", base+"/boot/"+benchMAC+"/script.ipxe").Output()
	if err != nil {
		return "", fmt.Errorf("diskimage: iPXE script: %w", err)
	}
	return rootfsURL(string(script))
}

// errNoRootfs: the script names no coreos.live.rootfs_url.
var errNoRootfs = errors.New("diskimage: the iPXE script has no coreos.live.rootfs_url")

// rootfsURL is the coreos.live.rootfs_url of an iPXE script's kernel line.
func rootfsURL(script string) (string, error) {
	for _, line := range strings.Split(script, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != "kernel" {
			continue
		}
		for _, a := range f[1:] {
			if u, ok := strings.CutPrefix(a, "coreos.live.rootfs_url="); ok {
				return u, nil
			}
		}
	}
	return "", fmt.Errorf("%w:\n%s", errNoRootfs, script)
}
