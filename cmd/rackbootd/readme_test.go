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
)

// readmeCommands are the commands of the first sh block after README.md's
// heading "## "+heading: comments dropped, continuation lines joined.
func readmeCommands(t *testing.T, heading string) []string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n## "+heading+"\n")
	if !ok {
		t.Fatalf("README.md has no section %q", heading)
	}
	_, rest, _ = strings.Cut(rest, "```sh\n")
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

// readmeImageSet is the README's image set "testbed" (user configs).
const readmeImageSet = `
[[image_set]]
name = "testbed"
version = "4.17.0"
profile = "discovery"
disk_image = "disk.img"
role_ignition_dir = "roles"
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

// registerReadmeHost plays a machine of the README's rack booting the
// infra-env's discovery image: it registers and reports an inventory
// named master-<n> on 10.99.0.1<n>/24 (the agent's golden inventory
// of a small VM, renamed and renumbered).
func (d *testDaemon) registerReadmeHost(ieID string, n int) {
	d.t.Helper()
	inv, err := os.ReadFile("../rackboot-agent/inventory/testdata/qemu-bios.json")
	if err != nil {
		d.t.Fatal(err)
	}
	s := strings.NewReplacer("discovery-525400123401", fmt.Sprintf("master-%d", n),
		"10.55.0.23/16", fmt.Sprintf("10.99.0.1%d/24", n), "52:54:00:12:34:0", fmt.Sprintf("52:54:00:99:0%d:0", n)).Replace(string(inv))
	agent := d.agentOf(ieID)
	id := fmt.Sprintf("5eed0000-0000-4000-8000-00000000009%d", n)
	d.doJSON("POST", "/infra-envs/"+ieID+"/hosts", agent, `{"host_id":"`+id+`"}`, 201, nil)
	d.answerStepsWith(agent, "/infra-envs/"+ieID+"/hosts/"+id, []byte(s))
}

// README.md's walk-through, run as written by a new user's shell against a
// real rackbootd: "Discovering hosts" (three machines register while
// get hosts -w runs; describe and approve by hostname) and "Installing a
// cluster" (the cluster takes the image set's version; bind; install -w
// answers what is missing; get hosts -w; the credentials download says why
// user configs have none). Commands naming master-0 are run for each host,
// as their comments say.
func TestReadmeQuickStart(t *testing.T) {
	d := newTestDaemon(t, freePort(t, "tcp"), freePort(t, "udp"))
	writeFile(t, d.dir, "disk.img", strings.Repeat("disk image ", 1000))
	writeFile(t, d.dir, "roles/master.ign", `{"ignition":{"version":"3.4.0"}}`)
	writeFile(t, d.dir, "roles/worker.ign", `{"ignition":{"version":"3.4.0"}}`)
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
	for n := range 3 {
		d.registerReadmeHost(ieID, n)
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
	// The golden inventory is a 2 GiB VM: install -w answers what is
	// missing, as the README says.
	out, ok = u.run(install[2])
	if ok || !strings.Contains(out, "is insufficient, not ready to install (HTTP 409); failing validations:") ||
		!strings.Contains(out, "host/master-2   has-min-memory") {
		t.Errorf("install rack1 -w (ok %v):\n%s", ok, out)
	}
	u.until(install[3], func(l []string) bool {
		return len(l) == 4 && strings.HasPrefix(l[0], "ID ") && sawAll(l, "master-0   auto-assign", "master-1", "master-2")
	})
	if out, ok = u.run(install[4]); ok || !strings.Contains(out, "its credentials are available once it is installed (HTTP 409)") {
		t.Errorf("download credentials kubeconfig rack1 (ok %v):\n%s", ok, out)
	}
}

// looksLikeUUID reports whether s has the 8-4-4-4-12 shape.
func looksLikeUUID(s string) bool {
	return len(s) == 36 && s[8] == '-' && s[13] == '-' && s[18] == '-' && s[23] == '-'
}
