package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// readmeCommands are the commands of the first sh block after README.md's
// heading "## "+heading: comments dropped, continuation lines joined.
func readmeCommands(t *testing.T, heading string) []string {
	t.Helper()
	return readmeBlock(t, heading, 0)
}

// readmeBlock is readmeCommands of the n-th (from 0) sh block of the
// section.
func readmeBlock(t *testing.T, heading string, n int) []string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n## "+heading+"\n")
	if !ok {
		t.Fatalf("README.md has no section %q", heading)
	}
	rest, _, _ = strings.Cut(rest, "\n## ")
	for range n {
		_, rest, _ = strings.Cut(rest, "```sh\n")
		_, rest, _ = strings.Cut(rest, "```")
	}
	_, rest, ok = strings.Cut(rest, "```sh\n")
	if !ok {
		t.Fatalf("README.md's %q has no sh block %d", heading, n)
	}
	block, _, _ := strings.Cut(rest, "```")
	var cmds []string
	cur := ""
	for _, l := range strings.Split(block, "\n") {
		if i := strings.Index(l, " #"); i >= 0 {
			l = l[:i]
		}
		if strings.HasPrefix(strings.TrimSpace(l), "#") {
			l = ""
		}
		l = strings.TrimSpace(l)
		if c, ok := strings.CutSuffix(l, `\`); ok {
			cur += c
			continue
		}
		if cur+l != "" {
			cmds = append(cmds, cur+l)
		}
		cur = ""
	}
	return cmds
}

// readmeUser is a new user's shell: a home with a pull secret and an SSH
// key, rackbootctl and kubectl on PATH, and rackbootctl's config file
// naming the daemon's data directory (where the token file is; the
// README's /var/lib/rackboot is the package's).
type readmeUser struct {
	t             *testing.T
	d             *testDaemon
	home, exports string
	env           []string
}

func newReadmeUser(t *testing.T, d *testDaemon) *readmeUser {
	t.Helper()
	bin, err := ctlBuild()
	if err != nil {
		t.Fatalf("building rackbootctl: %v", err)
	}
	bin = filepath.Dir(bin)
	home := t.TempDir()
	writeFile(t, home, "pull-secret.json", `{"auths":{"quay.io":{"auth":"dTpw"}}}`)
	writeFile(t, home, ".ssh/id_ed25519.pub", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOmN2oqCA8Hf0ADq0MFoZyxuyV0U1d4H0ADTbPjkpfu0 user@example.com\n")
	writeFile(t, home, ".config/rackboot/rackbootctl.toml", fmt.Sprintf("data_dir = %q\n", filepath.Join(d.dir, "state")))
	return &readmeUser{t: t, d: d, home: home,
		env: []string{"HOME=" + home, "PATH=" + bin + ":/usr/bin:/bin", "LANG=C.UTF-8"}}
}

// command is the shell command of line: the README's 127.0.0.1:8080 is
// this daemon's address, and the exports seen so far come first.
func (u *readmeUser) command(ctx context.Context, line string) *exec.Cmd {
	line = strings.ReplaceAll(line, "127.0.0.1:8080", u.d.httpAddr)
	if strings.HasPrefix(line, "export ") {
		u.exports += line + "\n"
	}
	cmd := exec.CommandContext(ctx, "bash", "-e", "-c", u.exports+line)
	cmd.Dir, cmd.Env = u.home, u.env
	return cmd
}

// run runs line; ok is its success.
func (u *readmeUser) run(line string) (out string, ok bool) {
	u.t.Helper()
	b, err := u.command(context.Background(), line).CombinedOutput()
	return string(b), err == nil
}

// must runs line, which must succeed.
func (u *readmeUser) must(line string) string {
	u.t.Helper()
	out, ok := u.run(line)
	if !ok {
		u.t.Fatalf("README: %s:\n%s", line, out)
	}
	return out
}

// until starts line (a -w that runs until stopped) and stops it once
// done has seen its output lines agree.
func (u *readmeUser) until(line string, done func(lines []string) bool) string {
	u.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := u.command(ctx, line)
	out, err := cmd.StdoutPipe()
	if err != nil {
		u.t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		u.t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if done(lines) {
			cancel()
			break
		}
	}
	_ = cmd.Wait()
	if !done(lines) {
		u.t.Fatalf("README: %s ended with:\n%s", line, strings.Join(lines, "\n"))
	}
	return strings.Join(lines, "\n")
}

// readmeImageSet is the README's image set "testbed", made by an
// openshift-install (the stand-in below).
const readmeImageSet = `
[[image_set]]
name = "testbed"
version = "4.17.0"
profile = "discovery"
disk_image = "disk.img"
generator = "openshift-install"
openshift_install = "openshift-install"
`

// readmeOpenShiftInstall is a stand-in openshift-install honouring the
// contract of docs/install-generators.md: the role configs (bootstrap's
// is master's), metadata.json and the credentials.
const readmeOpenShiftInstall = `#!/bin/sh
set -eu
[ $# -eq 4 ] && [ "$1" = create ] && [ "$2" = ignition-configs ] && [ "$3" = --dir ] || { echo "usage: create ignition-configs --dir DIR" >&2; exit 64; }
dir=$4
name=$(sed -n '/^metadata:/{n;s/^  name: //p;}' "$dir/install-config.yaml")
domain=$(sed -n 's/^baseDomain: //p' "$dir/install-config.yaml")
master='{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"/etc/role","contents":{"source":"data:,master"}}]}}'
echo "$master" >"$dir/bootstrap.ign"
echo "$master" >"$dir/master.ign"
echo '{"ignition":{"version":"3.4.0"}}' >"$dir/worker.ign"
printf '{"clusterName":"%s","infraID":"%s-readme"}\n' "$name" "$name" >"$dir/metadata.json"
mkdir -p "$dir/auth"
printf 'apiVersion: v1\nkind: Config\nclusters:\n- name: %s\n  cluster:\n    server: https://api.%s.%s:6443\n' "$name" "$name" "$domain" >"$dir/auth/kubeconfig"
echo readme-password >"$dir/auth/kubeadmin-password"
`

// sawAll reports whether every one of words is in some line.
func sawAll(lines []string, words ...string) bool {
	all := strings.Join(lines, "\n")
	for _, w := range words {
		if !strings.Contains(all, w) {
			return false
		}
	}
	return true
}

// README.md's walk-through, run as written by a new user's shell against a
// real rackbootd: "Discovering hosts" (three machines register while
// get hosts -w runs; describe and approve by hostname) and "Installing a
// cluster" (the cluster takes the image set's version; bind; install -w
// follows the three hosts, played as agents, to installed; get hosts -w;
// the kubeconfig the image set's openshift-install made). Commands naming master-0 are run for each host,
// as their comments say.
func TestReadmeQuickStart(t *testing.T) {
	d := newTestDaemon(t, freePort(t, "tcp"), freePort(t, "udp"))
	writeFile(t, d.dir, "disk.img", strings.Repeat("disk image ", 1000))
	writeFile(t, d.dir, "openshift-install", readmeOpenShiftInstall)
	if err := os.Chmod(filepath.Join(d.dir, "openshift-install"), 0o755); err != nil {
		t.Fatal(err)
	}
	d.writeConfig(d.configText("console=ttyS0", "vmlinuz") + readmeImageSet)
	d.start(nil)
	d.waitNote("READY=1")
	u := newReadmeUser(t, d)

	discover := readmeCommands(t, "Discovering hosts")
	want := []string{"export RACKBOOT_URL=", "rackbootctl create infra-env", "rackbootctl get hosts -w",
		"rackbootctl describe host master-0", "rackbootctl approve host master-0"}
	if len(discover) != len(want) {
		t.Fatalf("README's Discovering hosts: %q", discover)
	}
	for i, w := range want {
		if !strings.HasPrefix(discover[i], w) {
			t.Fatalf("README's Discovering hosts, command %d: %q, want %q...", i, discover[i], w)
		}
	}
	u.must(discover[0])
	out := u.must(discover[1])
	ieID, ok := strings.CutPrefix(strings.TrimSuffix(out, " created\n"), "infra-env/")
	if !ok || !looksLikeUUID(ieID) {
		t.Fatalf("create infra-env printed %q", out)
	}
	hosts := make([]*readmeHost, 3)
	for n := range hosts {
		hosts[n] = &readmeHost{d: d, n: n}
		hosts[n].register(ieID)
		hosts[n].poll()
	}
	u.until(discover[2], func(l []string) bool { return sawAll(l, "master-0", "master-1", "master-2") })
	got := u.must(discover[3])
	wantLines(t, "describe host master-0", got, "master-0", "10.99.0.10/24")
	for n := range 3 {
		got := u.must(strings.ReplaceAll(discover[4], "master-0", fmt.Sprintf("master-%d", n)))
		wantLines(t, "approve", got, "approved")
	}

	install := readmeCommands(t, "Installing a cluster")
	want = []string{"rackbootctl create cluster", "rackbootctl bind host master-0 --cluster rack1", "rackbootctl install rack1 -w",
		"rackbootctl get hosts -w", "rackbootctl download credentials kubeconfig rack1"}
	if len(install) != len(want) {
		t.Fatalf("README's Installing a cluster: %q", install)
	}
	for i, w := range want {
		if !strings.HasPrefix(install[i], w) {
			t.Fatalf("README's Installing a cluster, command %d: %q, want %q...", i, install[i], w)
		}
	}
	wantLines(t, "create cluster", u.must(install[0]), "cluster/")
	wantLines(t, "the cluster's version", u.must("rackbootctl get cluster rack1 -o yaml"), "openshift_version: 4.17.0")
	for n := range 3 {
		u.must(strings.ReplaceAll(install[1], "master-0", fmt.Sprintf("master-%d", n)))
	}
	clusterID := strings.TrimSpace(u.must("rackbootctl get cluster rack1 -o jsonpath={.id}"))
	readyAll(d, hosts, clusterID)

	// install -w follows the installation while the hosts install.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inst := u.command(ctx, install[2])
	var instOut strings.Builder
	inst.Stdout, inst.Stderr = &instOut, &instOut
	if err := inst.Start(); err != nil {
		t.Fatal(err)
	}
	for _, h := range hosts {
		h.install()
	}
	if err := inst.Wait(); err != nil {
		t.Errorf("install rack1 -w: %v\n%s", err, instOut.String())
	}
	wantLines(t, "install rack1 -w", instOut.String(), "cluster rack1: installed — Cluster is installed [100%]",
		"master-2   master             installed")
	u.until(install[3], func(l []string) bool {
		return len(l) == 4 && sawAll(l, "master-0   master   installed", "master-1   master   installed", "master-2   master   installed")
	})
	if out, ok = u.run(install[4]); !ok || !strings.Contains(out, "server: https://api.rack1.example.com:6443") {
		t.Errorf("download credentials kubeconfig rack1 (ok %v):\n%s", ok, out)
	}
}

// readyAll polls the hosts every tick until the cluster is ready.
func readyAll(d *testDaemon, hosts []*readmeHost, clusterID string) {
	d.t.Helper()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(waitLimit)
	for {
		for _, h := range hosts {
			h.poll()
		}
		var c struct {
			Status          string `json:"status"`
			ValidationsInfo string `json:"validations_info"`
			Hosts           []struct {
				RequestedHostname string `json:"requested_hostname"`
				Status            string `json:"status"`
				StatusInfo        string `json:"status_info"`
				ValidationsInfo   string `json:"validations_info"`
			} `json:"hosts"`
		}
		d.doJSON("GET", "/clusters/"+clusterID, "Authorization: Bearer "+d.adminToken(), "", 200, &c)
		if c.Status == "ready" {
			return
		}
		select {
		case <-tick.C:
		case <-deadline:
			d.t.Fatalf("cluster is %s (%s); hosts %+v", c.Status, c.ValidationsInfo, c.Hosts)
		}
	}
}

// looksLikeUUID reports whether s has the 8-4-4-4-12 shape.
func looksLikeUUID(s string) bool {
	return len(s) == 36 && s[8] == '-' && s[13] == '-' && s[18] == '-' && s[23] == '-'
}

// README.md's "kubectl and the ACM kinds", run as written by a new user's
// shell: the kubeconfig, real kubectl creating the namespace and pull
// secret and applying the ZTP manifests, then rackbootctl's own block on
// the same objects (apply: unchanged after kubectl's; the InfraEnv's iPXE
// script; the Agents; wait, whose 90 minutes are cut to one second since
// no host installs here; delete -f).
func TestReadmeKubectl(t *testing.T) {
	needKubectl(t)
	d := startDaemon(t)
	d.waitNote("READY=1")
	u := newReadmeUser(t, d)
	ztp, err := os.ReadFile("testdata/kube/ztp.yaml")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, u.home, "ztp.yaml", string(ztp))
	writeFile(t, u.home, "ztp/ztp.yaml", string(ztp))

	kc := readmeBlock(t, "kubectl and the ACM kinds", 0)
	if len(kc) != 5 || kc[0] != "rackbootctl kubeconfig > rackboot.kubeconfig" {
		t.Fatalf("README's kubectl block: %q", kc)
	}
	u.must("export RACKBOOT_URL=http://127.0.0.1:8080")
	u.must(kc[0])
	wantLines(t, "create namespace", u.must(kc[1]), "namespace/kni21 created")
	wantLines(t, "create secret", u.must(kc[2]), "secret/pull-secret created")
	wantLines(t, "kubectl apply", u.must(kc[3]), "infraenv.agent-install.openshift.io/kni21 created")
	wantLines(t, "kubectl get", u.must(kc[4]), "kni21       infraenv.agent-install.openshift.io/kni21", "kni21       agent.agent-install.openshift.io/aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee")

	ctl := readmeBlock(t, "kubectl and the ACM kinds", 1)
	if len(ctl) != 5 {
		t.Fatalf("README's rackbootctl block: %q", ctl)
	}
	out := u.must(ctl[0])
	wantLines(t, "rackbootctl apply after kubectl apply", out, "infraenv.agent-install.openshift.io/kni21 unchanged",
		"agentclusterinstall.extensions.hive.openshift.io/kni21 unchanged", "clusterimageset.hive.openshift.io/openshift-v4.10.16 unchanged")
	if strings.Contains(out, "configured") || strings.Contains(out, "created") {
		t.Errorf("rackbootctl apply after kubectl apply changed objects:\n%s", out)
	}
	if out := u.must(ctl[1]); !strings.HasPrefix(out, "http://") || !strings.Contains(out, "/script.ipxe") && !strings.Contains(out, "ipxe") {
		t.Errorf("the InfraEnv's iPXE script URL: %q", out)
	}
	wantLines(t, "get agents -A -o wide", u.must(ctl[2]), "NAMESPACE   NAME", "HOSTNAME", "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee")
	if !strings.Contains(ctl[3], "--timeout=90m") {
		t.Fatalf("README's wait: %q", ctl[3])
	}
	if out, ok := u.run(strings.Replace(ctl[3], "--timeout=90m", "--timeout=1s", 1)); ok ||
		!strings.Contains(out, "timed out waiting for the condition on agentclusterinstalls/kni21") {
		t.Errorf("wait (ok %v): %s", ok, out)
	}
	wantLines(t, "delete -f", u.must(ctl[4]), "agent.agent-install.openshift.io/aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee deleted",
		"infraenv.agent-install.openshift.io/kni21 deleted", "clusterimageset.hive.openshift.io/openshift-v4.10.16 deleted")
}
