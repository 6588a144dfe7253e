package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestSyscallsAllowedByUnit runs the daemon under strace through what it
// does in production (the raft store, full-mode DHCP, TFTP, HTTP boot,
// metrics, a reload, a stop) and checks that every system call it made is
// allowed by the SystemCallFilter= lines of systemd/rackbootd.service, and
// every socket it opened by RestrictAddressFamilies=, so the hardening
// cannot break it in the field.
func TestSyscallsAllowedByUnit(t *testing.T) {
	for _, tool := range []string{"strace", "systemd-analyze", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	allowed := unitSyscalls(t, "../../systemd/rackbootd.service")
	tb := newDHCPTestbed(t, "52:54:00:00:00:01", "52:54:00:00:00:02")
	d := newTestDaemon(t, "10.99.0.1:8080", "10.99.0.1:69")
	text := strings.Replace(dhcpConfigText(""), "[tftp]\nenabled = false\n", "[tftp]\nlisten = \"10.99.0.1:69\"\nroot = \"tftp\"\n", 1)
	d.writeConfig(text)
	trace := filepath.Join(d.dir, "strace.out")
	d.start([]string{"ip", "netns", "exec", tb.server.Name, "strace", "-f", "-qq", "-o", trace})
	d.waitNote("READY=1")
	d.pid = childOf(t, d.cmd.Process.Pid)

	tb.lease(0)
	tb.lease(1)
	ctx := context.Background()
	for _, url := range []string{"http://10.99.0.1:8080/boot/" + testMAC + "/initrd", "http://10.99.0.1:8080/metrics", "tftp://10.99.0.1/big.bin"} {
		if out, err := tb.server.Run(ctx, "curl", "-sf", "-o", "/dev/null", url); err != nil {
			t.Fatalf("curl %s: %v\n%s", url, err, out)
		}
	}
	d.writeConfig(text + "\n")
	d.reload()
	d.stop()

	used := tracedSyscalls(t, trace)
	if len(used) < 20 {
		t.Fatalf("strace saw only %v", used)
	}
	t.Logf("system calls: %v", used)
	for _, name := range used {
		if !allowed[name] {
			t.Errorf("the daemon calls %s, which the unit's SystemCallFilter denies", name)
		}
	}
	families := unitSetting(t, "../../systemd/rackbootd.service", "RestrictAddressFamilies")
	used = socketFamilies(t, trace)
	t.Logf("socket families: %v", used)
	for _, fam := range used {
		if !slices.Contains(families, fam) {
			t.Errorf("the daemon opens an %s socket, which RestrictAddressFamilies=%v denies", fam, families)
		}
	}
}

var socketCall = regexp.MustCompile(`^\d+\s+socket\((AF_[A-Z0-9]+),`)

// socketFamilies lists the address families of the sockets in the trace.
func socketFamilies(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var fams []string
	for _, line := range strings.Split(string(data), "\n") {
		if m := socketCall.FindStringSubmatch(line); m != nil && !slices.Contains(fams, m[1]) {
			fams = append(fams, m[1])
		}
	}
	if len(fams) == 0 {
		t.Fatal("strace saw no socket()")
	}
	return fams
}

// unitSetting is the space-separated value of key in the unit.
func unitSetting(t *testing.T, unit, key string) []string {
	t.Helper()
	data, err := os.ReadFile(unit)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, key+"="); ok {
			return strings.Fields(v)
		}
	}
	t.Fatalf("%s has no %s=", unit, key)
	return nil
}

// childOf is the only child process of pid.
func childOf(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(pid) + "/children")
	f := strings.Fields(string(b))
	if err != nil || len(f) != 1 {
		t.Fatalf("children of %d: %q %v", pid, b, err)
	}
	child, _ := strconv.Atoi(f[0])
	return child
}

var straceLine = regexp.MustCompile(`^\d+\s+([a-z0-9_]+)\(`)

func tracedSyscalls(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var names []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if m := straceLine.FindStringSubmatch(sc.Text()); m != nil && !slices.Contains(names, m[1]) {
			names = append(names, m[1])
		}
	}
	slices.Sort(names)
	return names
}

// unitSyscalls is the set of system calls the unit's SystemCallFilter=
// lines allow: the allow-list minus every "~" deny-list.
func unitSyscalls(t *testing.T, unit string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(unit)
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{}
	var denied []string
	for _, line := range strings.Split(string(data), "\n") {
		v, ok := strings.CutPrefix(line, "SystemCallFilter=")
		if !ok {
			continue
		}
		deny := strings.HasPrefix(v, "~")
		for _, item := range strings.Fields(strings.TrimPrefix(v, "~")) {
			for _, name := range expandSyscalls(t, item) {
				if deny {
					denied = append(denied, name)
				} else {
					allowed[name] = true
				}
			}
		}
	}
	for _, name := range denied {
		delete(allowed, name)
	}
	if len(allowed) == 0 {
		t.Fatalf("%s allows no system call", unit)
	}
	return allowed
}

// expandSyscalls lists the system calls of a name or @group, recursively.
func expandSyscalls(t *testing.T, item string) []string {
	t.Helper()
	if !strings.HasPrefix(item, "@") {
		return []string{item}
	}
	out, err := exec.Command("systemd-analyze", "syscall-filter", item).Output()
	if err != nil {
		t.Fatalf("systemd-analyze syscall-filter %s: %v", item, err)
	}
	var names []string
	for _, line := range strings.Split(string(out), "\n") {
		name, ok := strings.CutPrefix(line, "    ")
		if !ok || name == "" || strings.HasPrefix(name, "#") {
			continue
		}
		names = append(names, expandSyscalls(t, name)...)
	}
	return names
}
