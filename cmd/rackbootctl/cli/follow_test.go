package cli_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/rackboot/rackboot/cmd/rackbootctl/cli"
	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
	"github.com/rackboot/rackboot/engine/models"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file:\n--- got\n%s--- want\n%s", name, got, want)
	}
}

// installRun is the states a cluster of one master and one worker goes
// through, one per GET of the cluster.
func installRun(last string) []*client.Cluster {
	started := models.DateTime(fakeNow.Add(-5 * time.Minute))
	host := func(id, name string, role models.HostRole, status string, stage models.HostStage, info string) *client.Host {
		h := &client.Host{Approved: true, Host: models.Host{ID: id, RequestedHostname: name, Role: role, Status: status}}
		if stage != "" {
			h.Progress = &models.HostProgressInfo{CurrentStage: stage, ProgressInfo: info}
		}
		return h
	}
	const m, w = "aaaaaaaa-0000-4000-8000-000000000001", "aaaaaaaa-0000-4000-8000-000000000002"
	state := func(status, info string, hs ...*client.Host) *client.Cluster {
		return &client.Cluster{ID: fakeCluster, Name: "prod", Status: status, StatusInfo: info, InstallStartedAt: started, Hosts: hs}
	}
	run := []*client.Cluster{
		state("preparing-for-installation", "Preparing cluster for installation",
			host(m, "master-0", models.HostRoleMaster, "preparing-for-installation", "", ""),
			host(w, "worker-0", models.HostRoleWorker, "preparing-for-installation", "", "")),
		state("installing", "Installation in progress",
			host(m, "master-0", models.HostRoleMaster, "installing-in-progress", models.HostStageWritingImageToDisk, "50%"),
			host(w, "worker-0", models.HostRoleWorker, "installing-in-progress", models.HostStageStartingInstallation, "")),
		state("installing", "Installation in progress", // nothing changed: nothing printed
			host(m, "master-0", models.HostRoleMaster, "installing-in-progress", models.HostStageWritingImageToDisk, "50%"),
			host(w, "worker-0", models.HostRoleWorker, "installing-in-progress", models.HostStageStartingInstallation, "")),
		state("installing", "Installation in progress",
			host(m, "master-0", models.HostRoleMaster, "installing-in-progress", models.HostStageRebooting, ""),
			host(w, "worker-0", models.HostRoleWorker, "installing-in-progress", models.HostStageWritingImageToDisk, "10%")),
	}
	switch last {
	case "installed":
		c := state("installed", "Cluster is installed",
			host(m, "master-0", models.HostRoleMaster, "installed", models.HostStageDone, ""),
			host(w, "worker-0", models.HostRoleWorker, "installed", models.HostStageDone, ""))
		c.InstallCompletedAt = models.DateTime(fakeNow.Add(-time.Minute))
		run = append(run, c)
	case "error":
		run = append(run, state("error", "Host worker-0 failed to install",
			host(m, "master-0", models.HostRoleMaster, "installing-in-progress", models.HostStageConfiguring, ""),
			host(w, "worker-0", models.HostRoleWorker, "error", models.HostStageFailed, "image sha256 mismatch")))
	}
	return run
}

// install -w to a pipe: the cluster's status when it changes, a
// progress row per host change, and exit 0 once installed.
func TestInstallFollowToInstalled(t *testing.T) {
	f := &fakeInstallAPI{t: t, states: installRun("installed")}
	res := runFake(t, f, "install", "prod", "-w", "--interval", "100ms")
	if res.code != 0 {
		t.Fatalf("install -w: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	golden(t, "install-follow.txt", res.stdout)
}

// install -w of an installation that fails: exit 1 with the cluster's
// reason and the failed host's.
func TestInstallFollowToError(t *testing.T) {
	f := &fakeInstallAPI{t: t, states: installRun("error")}
	res := runFake(t, f, "install", "prod", "-w", "--interval", "100ms")
	want := "error: installation failed: cluster prod is error: Host worker-0 failed to install\n  host worker-0: image sha256 mismatch\n"
	if res.code != cli.ExitError || res.stderr != want {
		t.Errorf("install -w of a failing install: exit %d, stderr %q; want 1, %q", res.code, res.stderr, want)
	}
}

// install -w on a terminal redraws one block in place: the cluster line
// and a line per host, cursor moved up over the previous block.
func TestInstallFollowOnTerminal(t *testing.T) {
	term := openTerminal(t)
	f := &fakeInstallAPI{t: t, states: installRun("installed")}
	code, stderr := runFakeTo(t, f, term.tty, "install", "prod", "-w", "--interval", "100ms")
	if code != 0 {
		t.Fatalf("install -w: exit %d: %s", code, stderr)
	}
	got := term.output()
	golden(t, "install-follow-terminal.txt", strings.ReplaceAll(got, "\x1b", "<ESC>"))
	// What a terminal shows at the end: the last block.
	up := regexp.MustCompile(`\x1b\[\d+A`).FindAllStringIndex(got, -1)
	if len(up) == 0 {
		t.Fatalf("the block was never redrawn:\n%s", got)
	}
	last := got[up[len(up)-1][1]:]
	last = strings.NewReplacer("\x1b[K", "", "\x1b[J", "").Replace(last)
	for _, want := range []string{"cluster prod: installed — Cluster is installed in 4m0s\n", "master-0 ", "worker-0 ", "100%"} {
		if !strings.Contains(last, want) {
			t.Errorf("the last block does not show %q:\n%s", want, last)
		}
	}
	if strings.Contains(last, "Rebooting") {
		t.Errorf("the last block still shows an earlier state:\n%s", last)
	}
}

// get hosts -w on a terminal shows the progress view of the real API's
// host stream, redrawn in place; -o table keeps the row-per-change log.
func TestWatchHostsOnTerminalShowsProgress(t *testing.T) {
	r := newRig(t)
	ie := createdID(t, r.ok("create", "infra-env", "--name", "lab", "--pull-secret-file", "-"))
	term := openTerminal(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel) // before the server closes, which waits for the stream
	done := make(chan int, 1)
	var stderr syncBuffer
	go func() {
		done <- cli.Run(ctx, []string{"get", "hosts", "-w", "--interval", "100ms"}, r.cliEnv(term.tty, &stderr))
	}()
	term.wait(t, "HOST   ROLE   STATUS   STAGE   PROGRESS")
	registerHost(t, r, ie, hostID)
	term.wait(t, hostID+"   auto-assign   discovering-unbound")
	r.ok("patch", "host", hostID, "--hostname", "node-1")
	term.wait(t, "\x1b[2AHOST     ROLE")
	term.wait(t, "node-1   auto-assign   discovering-unbound")
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("get hosts -w: exit %d: %s", code, stderr.String())
	}
	if got := term.output(); strings.Contains(got, "APPROVED") {
		t.Errorf("the terminal got the table, not the progress view:\n%s", got)
	}
}

// On a narrow terminal every line of the live block is cut to fit one row,
// so redrawing in place still lands on the block's first line.
func TestInstallFollowOnNarrowTerminal(t *testing.T) {
	term := openTerminal(t)
	if err := unix.IoctlSetWinsize(int(term.tty.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: 60}); err != nil {
		t.Fatal(err)
	}
	f := &fakeInstallAPI{t: t, states: installRun("installed")}
	if code, stderr := runFakeTo(t, f, term.tty, "install", "prod", "-w", "--interval", "100ms"); code != 0 {
		t.Fatalf("install -w: exit %d: %s", code, stderr)
	}
	esc := regexp.MustCompile(`\x1b\[\d*[A-Za-z]|\r`)
	lines := strings.Split(esc.ReplaceAllString(term.output(), ""), "\n")
	for _, l := range lines[1:] { // the first is install's answer, above the block
		if n := utf8.RuneCountInString(l); n >= 60 {
			t.Errorf("a line of %d runes on a 60-column terminal: %q", n, l)
		}
	}
	if !strings.Contains(strings.Join(lines, "\n"), "master-0   master   installed") {
		t.Errorf("the cut block lost the host rows:\n%s", strings.Join(lines, "\n"))
	}
}
