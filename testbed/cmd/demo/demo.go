package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/rackboot/rackboot/testbed/image"
	"github.com/rackboot/rackboot/testbed/netns"
	"github.com/rackboot/rackboot/testbed/qemu"
)

type options struct {
	firmware  string
	rackbootd string
	mac       string
}

const (
	bridge   = "br0"
	tap      = "tap0"
	hostname = "demo-0"
	bootTime = 10 * time.Minute // bounds a hung VM; a BIOS boot takes ~25 s, OVMF ~90 s
)

var doneRE = regexp.MustCompile(regexp.QuoteMeta(image.MarkerDone))

func run(ctx context.Context, o options) error {
	fw := qemu.BIOS
	switch o.firmware {
	case "bios":
	case "uefi":
		fw = qemu.UEFI
	default:
		return fmt.Errorf("unknown firmware %q (bios or uefi)", o.firmware)
	}
	daemon, err := filepath.Abs(o.rackbootd)
	if err != nil {
		return err
	}
	if _, err := os.Stat(daemon); err != nil {
		return fmt.Errorf("%w (run make build)", err)
	}
	step("building the test boot image (Debian kernel + busybox initrd)")
	cache, err := image.DefaultCacheDir()
	if err != nil {
		return err
	}
	art, err := image.Build(ctx, cache)
	if err != nil {
		return fmt.Errorf("building the test image: %w", err)
	}
	work, err := os.MkdirTemp("", "rackboot-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	conf, err := writeConfig(work, art, o.mac)
	if err != nil {
		return err
	}
	step("making network namespace with " + bridge + " 10.99.0.1/24 and " + tap)
	ns, err := segment(ctx)
	if err != nil {
		return err
	}
	defer ns.Close()
	step("starting rackbootd --config " + conf)
	stopDaemon, err := startDaemon(ctx, ns, daemon, conf, filepath.Join(work, "rackbootd.log"))
	if err != nil {
		return err
	}
	defer stopDaemon()
	step(fmt.Sprintf("powering on a %s VM with MAC %s; its serial console follows", fw, o.mac))
	console, err := bootVM(ctx, ns, fw, o.mac, work)
	if err != nil {
		return err
	}
	return summarize(console)
}

func step(s string) { fmt.Printf("\n==> %s\n", s) }

func writeConfig(dir string, art image.Artifacts, mac string) (string, error) {
	ign := filepath.Join(dir, "discovery.ign")
	const profileIgnition = `{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"/etc/motd","mode":420,"contents":{"source":"data:,booted%20by%20rackboot%0A"}}]}}`
	if err := os.WriteFile(ign, []byte(profileIgnition), 0o644); err != nil {
		return "", err
	}
	toml := fmt.Sprintf(`[server]
data_dir = %q
advertise = "10.99.0.1"
http_listen = "10.99.0.1:8080"

[dhcp]
mode = "full"
interfaces = [%q]
subnet = "10.99.0.0/24"
range = ["10.99.0.100", "10.99.0.200"]
router = "10.99.0.1"
dns = ["10.99.0.1"]
lease_time = "1h"

[[dhcp.reservation]]
mac = %q
ip = "10.99.0.11"
hostname = %q

[tftp]
listen = "10.99.0.1:69"
root = "/usr/lib/ipxe"

[[profile]]
name = "discovery"
kernel = %q
initrd = %q
cmdline = "console=ttyS0"
ignition = %q
macs = []
`, filepath.Join(dir, "state"), bridge, mac, hostname, art.Kernel, art.Initrd, ign)
	path := filepath.Join(dir, "rackboot.toml")
	return path, os.WriteFile(path, []byte(toml), 0o644)
}

func segment(ctx context.Context) (*netns.NS, error) {
	ns, err := netns.New(ctx, "rbdemo")
	if err != nil {
		return nil, err
	}
	if err := ns.AddBridge(ctx, bridge, "10.99.0.1/24"); err != nil {
		ns.Close()
		return nil, err
	}
	if err := ns.AddTap(ctx, tap, bridge); err != nil {
		ns.Close()
		return nil, err
	}
	return ns, nil
}

// startDaemon runs rackbootd in the namespace, its log to logPath, and waits
// until it answers /healthz.
func startDaemon(ctx context.Context, ns *netns.NS, bin, conf, logPath string) (func(), error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := ns.Command(ctx, bin, "--config", conf)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
		}
		logFile.Close()
		if log, err := os.ReadFile(logPath); err == nil {
			step("rackbootd's log, last lines")
			fmt.Print(lastLines(string(log), 12))
		}
	}
	if err := waitHealthy(ctx, ns, exited); err != nil {
		stop()
		log, _ := os.ReadFile(logPath)
		return nil, fmt.Errorf("%w\n%s", err, log)
	}
	return stop, nil
}

func waitHealthy(ctx context.Context, ns *netns.NS, exited <-chan error) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return fmt.Errorf("rackbootd exited: %v", err)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		if out, err := ns.Run(ctx, "curl", "-sf", "http://10.99.0.1:8080/healthz"); err == nil && strings.TrimSpace(out) == "ok" {
			return nil
		}
	}
	return errors.New("rackbootd did not answer /healthz within 30 s")
}

func bootVM(ctx context.Context, ns *netns.NS, fw qemu.Firmware, mac, work string) (string, error) {
	dir := filepath.Join(work, "vm")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	vm, err := qemu.Start(ctx, ns, qemu.Config{Firmware: fw, MAC: mac, Tap: tap, Dir: dir, NoReboot: true})
	if err != nil {
		return "", err
	}
	defer vm.Stop()
	stopTail := tail(vm.ConsolePath, os.Stdout)
	defer stopTail()
	wctx, cancel := context.WithTimeout(ctx, bootTime)
	defer cancel()
	if _, err := vm.WaitFor(wctx, doneRE); err != nil {
		return vm.Console(), fmt.Errorf("the VM did not finish booting: %w\n%s", err, vm.Stderr())
	}
	return vm.Console(), nil
}

// tail copies what is appended to path onto w until stopped.
func tail(path string, w io.Writer) func() {
	quit, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		var off int64
		for {
			off = copyFrom(path, off, w)
			select {
			case <-quit:
				copyFrom(path, off, w)
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return func() { close(quit); <-finished }
}

func copyFrom(path string, off int64, w io.Writer) int64 {
	f, err := os.Open(path)
	if err != nil {
		return off
	}
	defer f.Close()
	n, _ := io.Copy(w, io.NewSectionReader(f, off, 1<<40))
	return off + n
}

func summarize(console string) error {
	lease, err := image.ParseLease(console)
	if err != nil {
		return err
	}
	ign, err := image.ParseIgnition(console)
	if err != nil {
		return err
	}
	var pretty map[string]any
	if err := json.Unmarshal(ign, &pretty); err != nil {
		return fmt.Errorf("the VM's config.ign is not JSON: %w", err)
	}
	step("the VM booted rackboot's kernel and its own initrd")
	fmt.Printf("DHCP lease:  ip %s/%s, hostname %q, boot server %s\n", lease.IP, lease.Mask, lease.Hostname, lease.Server)
	version := ""
	if meta, ok := pretty["ignition"].(map[string]any); ok {
		version, _ = meta["version"].(string)
	}
	fmt.Printf("config.ign:  %d bytes of Ignition %s\n", len(ign), version)
	if !strings.Contains(string(ign), `"path":"/etc/hostname"`) {
		return fmt.Errorf("config.ign has no /etc/hostname for the reserved host %s", hostname)
	}
	fmt.Printf("             it writes /etc/hostname for the reserved host %s\n", hostname)
	return nil
}

func lastLines(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "")
}
