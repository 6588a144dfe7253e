package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/testbed/coreosimage"
	"github.com/rackboot/rackboot/testbed/e2e/installbed"
	"github.com/rackboot/rackboot/testbed/image"
	"github.com/rackboot/rackboot/testbed/netns"
)

type options struct {
	sno       bool
	rackbootd string
	wave      int
	keep      bool
	firmware  string
}

// Limits of the demo's waits: they only end a stuck run.
const (
	discoverLimit = 15 * time.Minute
	installLimit  = 45 * time.Minute
)

func run(ctx context.Context, o options) error {
	start := time.Now()
	switch o.firmware {
	case "uefi":
	case "bios": // what the Makefile of the boot-only demo passed
		fmt.Println("note: -firmware bios ignored: the installed OS boots under UEFI (OVMF) only")
	default:
		return fmt.Errorf("firmware %q: the VMs boot under UEFI (OVMF); want uefi", o.firmware)
	}
	if err := netns.Available(); err != nil {
		return fmt.Errorf("%w (run as root: sudo make demo)", err)
	}
	daemon, err := filepath.Abs(o.rackbootd)
	if err != nil {
		return err
	}
	ctl := filepath.Join(filepath.Dir(daemon), "rackbootctl")
	for _, b := range []string{daemon, ctl} {
		if _, err := os.Stat(b); err != nil {
			return fmt.Errorf("%w (run make build)", err)
		}
	}
	m, err := images(ctx)
	if err != nil {
		return err
	}
	root, err := image.RepoRoot()
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "rackboot-demo-")
	if err != nil {
		return err
	}
	defer cleanup(work, o.keep)
	nodes, roles := cluster(o.sno)
	log, err := os.Create(filepath.Join(work, "rackbootd.log"))
	if err != nil {
		return err
	}
	defer log.Close()
	step(fmt.Sprintf("starting rackbootd in a network namespace (br0 10.99.0.1/24, a tap per VM); its log: %s", log.Name()))
	bed, err := installbed.Start(ctx, installbed.Options{Rackbootd: daemon, Rackbootctl: ctl, Mirror: m,
		AgentDir: coreosimage.AgentDir(root), Nodes: nodes, Dir: work, Log: log})
	if err != nil {
		return err
	}
	defer bed.Close()
	err = demo(ctx, bed, o, nodes, roles, start)
	if err != nil {
		tell(bed)
	}
	return err
}

// images publishes (or takes from the cache) the CoreOS-shaped live image
// set and the OS disk image as a stream mirror.
func images(ctx context.Context) (coreosimage.Mirror, error) {
	step("building the testbed images (cached after the first run)")
	m, err := coreosimage.BuildDefault(ctx)
	if err != nil {
		return m, fmt.Errorf("building the CoreOS-shaped images: %w", err)
	}
	fmt.Printf("live image set:  Debian kernel, busybox live initramfs with Ignition, rootfs, live ISO (%s)\n", m.ISO.Path)
	fmt.Printf("OS disk image:   metal raw.xz, sha256 %s…\n", m.Metal.SHA256[:16])
	fmt.Printf("stream:          %s (the image set's coreos_stream)\n", m.Stream)
	return m, nil
}

// cluster is the demo's nodes and their roles.
func cluster(sno bool) ([]installbed.Node, map[string]string) {
	roles := map[string]string{}
	if sno {
		nodes := installbed.Nodes("sno", 0, 1)
		roles[nodes[0].Name] = "master"
		return nodes, roles
	}
	nodes := append(installbed.Nodes("master", 0, 3), installbed.Nodes("worker", 3, 1)...)
	for _, n := range nodes {
		roles[n.Name], _, _ = strings.Cut(n.Name, "-") // master-0 → master
	}
	return nodes, roles
}

func demo(ctx context.Context, bed *installbed.Bed, o options, nodes []installbed.Node, roles map[string]string, start time.Time) error {
	name := "demo"
	if o.sno {
		name = "sno"
	}
	step("defining the cluster and its infra-env with rackbootctl")
	id, err := bed.CreateCluster(ctx, name, o.sno)
	if err != nil {
		return err
	}
	if err := show(ctx, bed, "get", "clusters"); err != nil {
		return err
	}
	step(fmt.Sprintf("powering on %d VM(s), %d at a time (OVMF, an empty virtio disk; boot order: disk, then network)", len(nodes), o.wave))
	vms, err := bed.BootWaves(ctx, nodes, o.wave, installbed.AgentStartRE, func(s string) { fmt.Println(s) })
	if err != nil {
		return err
	}
	step("the hosts registered; approving them and giving them their roles")
	if err := approve(ctx, bed, id, nodes, roles); err != nil {
		return err
	}
	step(fmt.Sprintf("installing: rackbootctl install %s -w", name))
	if err := installWatch(ctx, bed, id, name); err != nil {
		return err
	}
	return summary(ctx, bed, id, vms, start)
}

// approve waits for every node's host, approves it and sets its role with
// rackbootctl, then waits until the cluster is ready.
func approve(ctx context.Context, bed *installbed.Bed, id string, nodes []installbed.Node, roles map[string]string) error {
	c, err := bed.API()
	if err != nil {
		return err
	}
	_, err = installbed.WaitHosts(ctx, c, id, discoverLimit, func(hs []*client.Host) bool {
		return registered(hs, nodes, func(h *client.Host) bool { return h.Inventory != "" })
	})
	if err != nil {
		return err
	}
	for _, n := range nodes {
		for _, args := range [][]string{{"approve", "host", n.Name}, {"patch", "host", n.Name, "--role", roles[n.Name]}} {
			fmt.Printf("$ rackbootctl %s\n", strings.Join(args, " "))
			if err := show(ctx, bed, args...); err != nil {
				return err
			}
		}
	}
	_, err = installbed.WaitHosts(ctx, c, id, discoverLimit, func(hs []*client.Host) bool {
		return registered(hs, nodes, func(h *client.Host) bool { return h.Status == models.HostStatusKnown })
	})
	if err != nil {
		return err
	}
	if _, err := installbed.WaitCluster(ctx, c, id, discoverLimit, "ready"); err != nil {
		return err
	}
	fmt.Println("$ rackbootctl get hosts")
	return show(ctx, bed, "get", "hosts")
}

// registered reports whether every node has a host for which ok is true.
func registered(hs []*client.Host, nodes []installbed.Node, ok func(*client.Host) bool) bool {
	for _, n := range nodes {
		found := false
		for _, h := range hs {
			found = found || (installbed.Hostname(h) == n.Name && ok(h))
		}
		if !found {
			return false
		}
	}
	return true
}

// installWatch runs rackbootctl install -w on the terminal: it starts the
// installation and draws a progress bar per host until the cluster is
// installed (or fails: exit 1).
func installWatch(ctx context.Context, bed *installbed.Bed, id, name string) error {
	cmd := bed.CtlCommand(ctx, "install", name, "-w")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("rackbootctl install %s -w: %w", name, err)
	}
	c, err := bed.API()
	if err != nil {
		return err
	}
	_, err = installbed.WaitCluster(ctx, c, id, installLimit, "installed")
	return err
}

// summary prints the final tables, where the time went and the elapsed
// time.
func summary(ctx context.Context, bed *installbed.Bed, id string, vms []*installbed.VM, start time.Time) error {
	step("the cluster is installed")
	for _, args := range [][]string{{"get", "clusters"}, {"get", "hosts"}} {
		fmt.Printf("$ rackbootctl %s\n", strings.Join(args, " "))
		if err := show(ctx, bed, args...); err != nil {
			return err
		}
	}
	for _, vm := range vms {
		fmt.Printf("%s console: %s\n", vm.Node.Name, roleLine(vm.Console()))
	}
	c, err := bed.API()
	if err != nil {
		return err
	}
	if tl, err := installbed.Collect(ctx, c, id, vms, 0); err == nil {
		step("where the time went (from rackbootd's events and the consoles)")
		fmt.Print(tl.Markdown())
	}
	step(fmt.Sprintf("done in %s (from the start of the demo to installed, on %s)", time.Since(start).Round(time.Second), machine()))
	return nil
}

// roleLine is the line the role config's unit printed on the installed
// system, or what is missing.
func roleLine(console string) string {
	for _, l := range strings.Split(console, "\n") {
		if i := strings.Index(l, installbed.MarkerRole); i >= 0 {
			return strings.TrimSpace(l[i:])
		}
	}
	return "(no " + installbed.MarkerRole + " line)"
}

// show runs rackbootctl args with its output on the terminal.
func show(ctx context.Context, bed *installbed.Bed, args ...string) error {
	out, err := bed.Ctl(ctx, args...)
	fmt.Print(out)
	return err
}

// tell prints the tails of rackbootd's log and the consoles after a
// failure.
func tell(bed *installbed.Bed) {
	step("rackbootd's log, last lines")
	fmt.Print(tail(bed.DaemonLog(), 20))
	for _, vm := range bed.VMs() {
		step(vm.Node.Name + "'s console, last lines")
		fmt.Println(vm.ConsoleTail(15))
	}
}

func cleanup(dir string, keep bool) {
	if keep {
		fmt.Printf("\nwork directory kept: %s\n", dir)
		return
	}
	if err := os.RemoveAll(dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		fmt.Fprintln(os.Stderr, "demo:", err)
	}
}

func step(s string) { fmt.Printf("\n==> %s\n", s) }

func tail(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "")
}

// machine is "N cores, M GiB" of this machine, for the elapsed time line.
func machine() string {
	mem := ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int64
		if _, err := fmt.Sscanf(string(b), "MemTotal: %d kB", &kb); err == nil {
			mem = fmt.Sprintf(", %d GiB", (kb+(1<<19))>>20)
		}
	}
	return fmt.Sprintf("%d cores%s, QEMU under TCG", runtime.NumCPU(), mem)
}
