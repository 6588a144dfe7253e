package osimage

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rackboot/rackboot/testbed/netns"
	"github.com/rackboot/rackboot/testbed/qemu"
)

// requireVM skips unless RACKBOOT_E2E=1 (these tests boot TCG VMs for
// minutes; run them under flock /tmp/rackboot-qemu.lock) and the machine
// can build namespaces and run QEMU with OVMF.
func requireVM(t *testing.T) {
	t.Helper()
	if os.Getenv("RACKBOOT_E2E") != "1" {
		t.Skip("boots OVMF VMs: set RACKBOOT_E2E=1 (run under flock /tmp/rackboot-qemu.lock)")
	}
	if err := netns.Available(); err != nil {
		t.Skip(err)
	}
	for _, b := range []string{qemu.DefaultBinary, "dnsmasq"} {
		if _, err := exec.LookPath(b); err != nil {
			t.Fatalf("RACKBOOT_E2E=1 but %s is missing: %v", b, err)
		}
	}
	if _, err := os.Stat(qemu.DefaultOVMFCode); err != nil {
		t.Fatalf("RACKBOOT_E2E=1 but OVMF is missing: %v", err)
	}
}

// bed is a namespace with a bridge (10.98.0.1/24) and a tap for one VM.
type bed struct {
	ns  *netns.NS
	dir string
}

const (
	bridgeIP = "10.98.0.1"
	vmMAC    = "52:54:00:98:00:01"
)

func newBed(t *testing.T) *bed {
	t.Helper()
	ctx := t.Context()
	ns, err := netns.New(ctx, "osimg")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ns.Close() })
	if err := ns.AddBridge(ctx, "br0", bridgeIP+"/24"); err != nil {
		t.Fatal(err)
	}
	if err := ns.AddTap(ctx, "tap0", "br0"); err != nil {
		t.Fatal(err)
	}
	return &bed{ns: ns, dir: t.TempDir()}
}

// dhcp runs dnsmasq as a DHCP server only (no DNS, no boot file) on the
// bridge until the test ends.
func (b *bed) dhcp(t *testing.T) { b.dnsmasq(t) }

// dnsmasq runs dnsmasq on the bridge until the test ends: DHCP on
// 10.98.0.100–150 without DNS, plus the extra options (TFTP, boot files).
// Its output is logged when the test fails.
func (b *bed) dnsmasq(t *testing.T, extra ...string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	args := append([]string{"--no-daemon", "--conf-file=/dev/null", "--port=0",
		"--interface=br0", "--bind-interfaces", "--dhcp-range=10.98.0.100,10.98.0.150,255.255.255.0,1h",
		"--dhcp-leasefile=" + filepath.Join(b.dir, "leases"), "--pid-file="}, extra...)
	cmd := b.ns.Command(ctx, "dnsmasq", args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		cmd.Wait()
		if t.Failed() {
			t.Logf("dnsmasq:\n%s", out.String())
		}
	})
}

// put is one request the progress server received.
type put struct {
	method, path, token, body string
}

// progressServer is an HTTP server on the bridge, inside the namespace,
// recording every request.
type progressServer struct {
	url  string
	mu   sync.Mutex
	puts []put
	got  chan struct{}
}

func (b *bed) progressServer(t *testing.T) *progressServer {
	t.Helper()
	s := &progressServer{got: make(chan struct{}, 16)}
	var ln net.Listener
	if err := b.ns.Do(func() error {
		var err error
		ln, err = net.Listen("tcp", bridgeIP+":0")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	s.url = "http://" + ln.Addr().String()
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.puts = append(s.puts, put{r.Method, r.URL.Path, r.Header.Get("X-Secret-Key"), string(body)})
		s.mu.Unlock()
		s.got <- struct{}{}
		w.WriteHeader(http.StatusOK)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return s
}

func (s *progressServer) requests() []put {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]put(nil), s.puts...)
}

// firstBootConfig is an install Ignition in small: a file, a first-boot
// script with a host-scoped token reporting Done with curl, its unit
// enabled the way the engine enables it, and a second unit enabled through
// a multi-user.target.wants link that shows the file on the console.
func firstBootConfig(t *testing.T, progressURL, token string) []byte {
	t.Helper()
	script := fmt.Sprintf(`#!/bin/sh
set -e
curl -fsS -X PUT -H 'X-Secret-Key: %s' -H 'Content-Type: application/json' \
	-d '{"current_stage":"Done"}' '%s/api/assisted-install/v2/infra-envs/ie1/hosts/h1/progress'
echo RACKBOOT-FIRSTBOOT-DONE
`, token, progressURL)
	data := func(s string) string { return "data:," + url.PathEscape(s) }
	cfg := map[string]any{
		"ignition": map[string]any{"version": "3.4.0"},
		"storage": map[string]any{
			"files": []any{
				map[string]any{"path": "/etc/rackboot-test/hello", "mode": 0o644, "contents": map[string]any{"source": data("hello from ignition\n")}},
				map[string]any{"path": "/usr/local/bin/rackboot-firstboot", "mode": 0o700, "contents": map[string]any{"source": data(script)}},
			},
			"links": []any{map[string]any{"path": "/etc/systemd/system/multi-user.target.wants/show-hello.service",
				"target": "/etc/systemd/system/show-hello.service"}},
		},
		"systemd": map[string]any{"units": []any{
			map[string]any{"name": "rackboot-firstboot.service", "enabled": true, "contents": "[Unit]\nDescription=Report the first boot to rackboot\n" +
				"After=network-online.target\nWants=network-online.target\n\n[Service]\nType=oneshot\n" +
				"ExecStart=/usr/local/bin/rackboot-firstboot\n\n[Install]\nWantedBy=multi-user.target\n"},
			map[string]any{"name": "show-hello.service", "contents": "[Service]\nType=oneshot\nEnvironment=\"PREFIX=RACKBOOT-TEST-FILE\"\n" +
				"ExecStart=/bin/sh -c 'echo \"$PREFIX $(cat /etc/rackboot-test/hello)\"'\n"},
		}},
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// diskSize is the size of the VMs' disks: larger than the image, as a
// host's disk is, so the image's backup GPT is not at the disk's end.
const diskSize = 256 * mib

// diskCopy copies the built image to the start of a diskSize disk file for
// one VM, as the installer writes it to a host's disk.
func diskCopy(t *testing.T, img Image, dir string) string {
	t.Helper()
	b, err := os.ReadFile(img.Path)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "disk.img")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, diskSize); err != nil {
		t.Fatal(err)
	}
	return path
}

func startVM(t *testing.T, b *bed, disk string, boot qemu.BootOrder) *qemu.VM {
	t.Helper()
	vm, err := qemu.Start(t.Context(), b.ns, qemu.Config{Firmware: qemu.UEFI, MAC: vmMAC, Tap: "tap0",
		Dir: b.dir, Disk: disk, Boot: boot})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		vm.Stop()
		if t.Failed() {
			t.Logf("console tail:\n%s\nqemu: %s", vm.ConsoleTail(60), vm.Stderr())
		}
	})
	return vm
}

// waitConsole waits (up to limit) until re has matched the console n times.
func waitConsole(t *testing.T, vm *qemu.VM, re string, n int, limit time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), limit)
	defer cancel()
	pat := regexp.MustCompile(`(?s)` + strings.Repeat(`(?:`+re+`).*?`, n-1) + `(?:` + re + `)`)
	if _, err := vm.WaitFor(ctx, pat); err != nil {
		t.Fatalf("waiting for %d× %s: %v", n, re, err)
	}
}

// TestFirstBootUnderOVMF: an installed disk (the image with an Ignition
// config in boot's ignition/config.ign and a kernel argument appended to
// its BLS entry, as the installer does) boots under OVMF from its virtio
// disk through GRUB, with the entry's options and ignition.firstboot (the
// stamp is there) on the kernel's command line; it applies the config
// with the real Ignition, runs the enabled units — the first-boot unit's
// curl PUT reaches the server with its token — and removes the stamp and
// the config. After a reset it boots from the disk again, without
// ignition.firstboot, and does not run the first boot a second time.
func TestFirstBootUnderOVMF(t *testing.T) {
	requireVM(t)
	img := builtImage(t)
	b := newBed(t)
	b.dhcp(t)
	srv := b.progressServer(t)
	disk := diskCopy(t, img, b.dir)
	const token = "host-scoped-token-1234"
	if err := WriteIgnition(disk, firstBootConfig(t, srv.url, token)); err != nil {
		t.Fatal(err)
	}
	const karg = "rackboot.appended=persistent-karg"
	appendKarg(t, disk, karg)

	start := time.Now()
	vm := startVM(t, b, disk, qemu.BootDisk)
	waitConsole(t, vm, `RACKBOOT-OS-BOOT`, 1, 5*time.Minute)
	t.Logf("power-on to RACKBOOT-OS-BOOT: %s", time.Since(start).Round(time.Second))
	waitConsole(t, vm, `RACKBOOT-OS-READY`, 1, 5*time.Minute)
	t.Logf("power-on to RACKBOOT-OS-READY (first boot done): %s", time.Since(start).Round(time.Second))
	con := vm.Console()
	if cmd := cmdline(con); !strings.Contains(cmd, " "+karg) || !strings.Contains(cmd, " ignition.firstboot") ||
		!strings.Contains(cmd, "ignition.platform.id=metal") {
		t.Errorf("first boot's /proc/cmdline = %q, want the entry's options with %s and ignition.firstboot", cmd, karg)
	}
	for _, want := range []string{"RACKBOOT-IGNITION-APPLIED", "RACKBOOT-TEST-FILE hello from ignition",
		"RACKBOOT-UNIT-OK show-hello.service", "RACKBOOT-UNIT-OK rackboot-firstboot.service",
		"\nRACKBOOT-FIRSTBOOT-DONE", "RACKBOOT-OS-FIRSTBOOT-RECORDED"} {
		if !strings.Contains(con, want) {
			t.Errorf("first boot console lacks %q", want)
		}
	}
	if strings.Contains(con, "RACKBOOT-ERROR") {
		t.Errorf("first boot printed an error:\n%s", grepLines(con, "RACKBOOT-ERROR"))
	}
	if strings.Contains(con, token) {
		t.Error("the token reached the console")
	}
	reqs := srv.requests()
	if len(reqs) != 1 {
		t.Fatalf("server got %d requests, want 1: %+v", len(reqs), reqs)
	}
	if r := reqs[0]; r.method != http.MethodPut || r.token != token || r.body != `{"current_stage":"Done"}` ||
		r.path != "/api/assisted-install/v2/infra-envs/ie1/hosts/h1/progress" {
		t.Errorf("request = %+v", r)
	}

	reset := time.Now()
	if err := vm.SystemReset(t.Context()); err != nil {
		t.Fatal(err)
	}
	waitConsole(t, vm, `RACKBOOT-OS-READY`, 2, 5*time.Minute)
	t.Logf("reset to RACKBOOT-OS-READY (second boot): %s", time.Since(reset).Round(time.Second))
	second := vm.Console()[len(con):]
	if !strings.Contains(second, "RACKBOOT-OS-BOOT") || !strings.Contains(second, "RACKBOOT-OS-FIRSTBOOT-SKIPPED") {
		t.Errorf("second boot did not boot the OS and skip the first boot:\n%s", qemu.Tail(second, 30))
	}
	if cmd := cmdline(second); !strings.Contains(cmd, " "+karg) || strings.Contains(cmd, "ignition.firstboot") {
		t.Errorf("second boot's /proc/cmdline = %q, want %s without ignition.firstboot", cmd, karg)
	}
	for _, bad := range []string{"RACKBOOT-FIRSTBOOT-DONE", "RACKBOOT-IGNITION-APPLIED", "RACKBOOT-UNIT-START"} {
		if strings.Contains(second, bad) {
			t.Errorf("second boot printed %s", bad)
		}
	}
	if n := len(srv.requests()); n != 1 {
		t.Errorf("server got %d requests after the second boot, want still 1", n)
	}
	if err := vm.Quit(t.Context()); err != nil {
		t.Fatal(err)
	}
	<-vm.Done()
	checkStampGone(t, disk)
}

// checkStampGone: the first boot removed the stamp and the Ignition
// config (it holds secrets) from the disk's boot file system, and left the
// BLS entry.
func checkStampGone(t *testing.T, disk string) {
	t.Helper()
	for _, name := range []string{StampName, ConfigPath} {
		if _, ok, err := ReadBootFile(t.Context(), disk, name); ok || err != nil {
			t.Errorf("after the first boot the boot file system still has %s (%v)", name, err)
		}
	}
	if _, ok, err := ReadBootFile(t.Context(), disk, EntryPath); !ok || err != nil {
		t.Errorf("after the first boot the boot file system has no %s (%v)", EntryPath, err)
	}
}

// appendKarg appends arg to the options of the disk's BLS entry, as the
// installer does with --append-karg.
func appendKarg(t *testing.T, disk, arg string) {
	t.Helper()
	entry, ok, err := ReadBootFile(t.Context(), disk, EntryPath)
	if err != nil || !ok {
		t.Fatalf("%s: present %t, %v", EntryPath, ok, err)
	}
	lines := strings.Split(string(entry), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "options ") {
			lines[i] = l + " " + arg
		}
	}
	if err := WriteBootFile(t.Context(), disk, EntryPath, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// cmdline is the kernel command line the OS printed last on con.
func cmdline(con string) string {
	const marker = "RACKBOOT-OS-CMDLINE "
	i := strings.LastIndex(con, marker)
	if i < 0 {
		return ""
	}
	l, _, _ := strings.Cut(con[i+len(marker):], "\n")
	return " " + strings.TrimSpace(l)
}

// TestNetworkThenDiskFallsThrough: with the NIC first in the boot order
// and nothing answering PXE, OVMF gives up on the network and boots the
// disk, as an installed host does when rackboot's iPXE script exits.
func TestNetworkThenDiskFallsThrough(t *testing.T) {
	requireVM(t)
	img := builtImage(t)
	b := newBed(t)
	disk := diskCopy(t, img, b.dir)
	start := time.Now()
	vm := startVM(t, b, disk, qemu.BootNetworkThenDisk)
	waitConsole(t, vm, `RACKBOOT-OS-BOOT`, 1, 6*time.Minute)
	t.Logf("power-on to RACKBOOT-OS-BOOT through a PXE timeout: %s", time.Since(start).Round(time.Second))
	con := vm.Console()
	boot := strings.Index(con, "RACKBOOT-OS-BOOT")
	pxe := strings.Index(con, ">>Start PXE over IPv4")
	if pxe < 0 || pxe > boot {
		t.Errorf("the firmware did not try PXE before the disk:\n%s", qemu.Tail(con[:boot], 20))
	}
	if strings.Contains(con[:boot], "IPv6") {
		t.Error("the firmware tried IPv6 network boot (network-then-disk turns it off)")
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestFailedFirstBootRunsAgain: when an enabled unit fails, the first
// boot is not recorded, and the next boot applies the config and runs the
// units again.
func TestFailedFirstBootRunsAgain(t *testing.T) {
	requireVM(t)
	img := builtImage(t)
	b := newBed(t)
	b.dhcp(t)
	disk := diskCopy(t, img, b.dir)
	cfg := `{"ignition":{"version":"3.4.0"},"systemd":{"units":[{"name":"fails.service","enabled":true,` +
		`"contents":"[Service]\nType=oneshot\nExecStart=-/bin/false\nExecStart=/bin/sh -c 'echo RACKBOOT-TEST-RAN; exit 3'\n[Install]\nWantedBy=multi-user.target\n"}]}}`
	if err := WriteIgnition(disk, []byte(cfg)); err != nil {
		t.Fatal(err)
	}
	vm := startVM(t, b, disk, qemu.BootDisk)
	waitConsole(t, vm, `RACKBOOT-OS-READY`, 1, 5*time.Minute)
	first := vm.Console()
	for _, want := range []string{"RACKBOOT-TEST-RAN", "RACKBOOT-UNIT-FAILED fails.service rc=3", "RACKBOOT-ERROR first boot failed"} {
		if !strings.Contains(first, want) {
			t.Errorf("first boot console lacks %q", want)
		}
	}
	if strings.Contains(first, "RACKBOOT-OS-FIRSTBOOT-RECORDED") {
		t.Error("a failed first boot was recorded")
	}
	if err := vm.SystemReset(t.Context()); err != nil {
		t.Fatal(err)
	}
	waitConsole(t, vm, `RACKBOOT-OS-READY`, 2, 5*time.Minute)
	if second := vm.Console()[len(first):]; !strings.Contains(second, "RACKBOOT-UNIT-START fails.service") ||
		!strings.Contains(cmdline(second), " ignition.firstboot") {
		t.Errorf("the second boot did not run the first boot again:\n%s", qemu.Tail(second, 30))
	}
	if err := vm.Quit(t.Context()); err != nil {
		t.Fatal(err)
	}
	<-vm.Done()
	for _, name := range []string{StampName, ConfigPath} {
		if _, ok, err := ReadBootFile(t.Context(), disk, name); !ok || err != nil {
			t.Errorf("after failed first boots the boot file system has no %s (%v)", name, err)
		}
	}
}

// TestDiskThenNetworkBootsDisk: with the disk first in the boot order, an
// installed disk boots without the firmware asking the network.
func TestDiskThenNetworkBootsDisk(t *testing.T) {
	requireVM(t)
	img := builtImage(t)
	b := newBed(t)
	disk := diskCopy(t, img, b.dir)
	vm := startVM(t, b, disk, qemu.BootDiskThenNetwork)
	waitConsole(t, vm, `RACKBOOT-OS-BOOT`, 1, 5*time.Minute)
	con := vm.Console()
	if before := con[:strings.Index(con, "RACKBOOT-OS-BOOT")]; strings.Contains(before, "PXE") {
		t.Errorf("the firmware tried the network before the disk:\n%s", qemu.Tail(before, 20))
	}
}

// TestFirstBootUnderSeaBIOS: the same installed disk boots under SeaBIOS
// too, through GRUB's boot.img and core.img in BIOS-BOOT: the entry's
// options with an appended argument and ignition.firstboot reach the
// kernel, the config is applied and the first boot recorded.
func TestFirstBootUnderSeaBIOS(t *testing.T) {
	requireVM(t)
	img := builtImage(t)
	b := newBed(t)
	b.dhcp(t)
	disk := diskCopy(t, img, b.dir)
	cfg := `{"ignition":{"version":"3.4.0"},"systemd":{"units":[{"name":"hello.service","enabled":true,` +
		`"contents":"[Service]\nType=oneshot\nExecStart=/bin/echo RACKBOOT-TEST-BIOS-UNIT\n[Install]\nWantedBy=multi-user.target\n"}]}}`
	if err := WriteIgnition(disk, []byte(cfg)); err != nil {
		t.Fatal(err)
	}
	const karg = "rackboot.appended=bios"
	appendKarg(t, disk, karg)
	vm, err := qemu.Start(t.Context(), b.ns, qemu.Config{Firmware: qemu.BIOS, MAC: vmMAC, Tap: "tap0",
		Dir: b.dir, Disk: disk, Boot: qemu.BootDisk})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		vm.Stop()
		if t.Failed() {
			t.Logf("console tail:\n%s\nqemu: %s", vm.ConsoleTail(60), vm.Stderr())
		}
	})
	start := time.Now()
	waitConsole(t, vm, `RACKBOOT-OS-READY`, 1, 5*time.Minute)
	t.Logf("power-on to RACKBOOT-OS-READY under SeaBIOS: %s", time.Since(start).Round(time.Second))
	con := vm.Console()
	if cmd := cmdline(con); !strings.Contains(cmd, " "+karg) || !strings.Contains(cmd, " ignition.firstboot") {
		t.Errorf("/proc/cmdline = %q, want %s and ignition.firstboot", cmd, karg)
	}
	for _, want := range []string{"RACKBOOT-IGNITION-APPLIED", "\nRACKBOOT-TEST-BIOS-UNIT", "RACKBOOT-OS-FIRSTBOOT-RECORDED"} {
		if !strings.Contains(con, want) {
			t.Errorf("console lacks %q", want)
		}
	}
}
