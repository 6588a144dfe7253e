package e2e

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/testbed/coreosimage"
	"github.com/rackboot/rackboot/testbed/e2e/installbed"
	"github.com/rackboot/rackboot/testbed/image"
	"github.com/rackboot/rackboot/testbed/osimage"
)

// Limits of the installation tests' waits (TCG VMs on a busy 2-core
// machine; they only end a stuck test).
const (
	discoveredLimit = 10 * time.Minute
	installLimit    = 40 * time.Minute
)

// osImage builds (or takes from the cache) the installable testbed OS.
func osImage(t *testing.T, ctx context.Context) osimage.Image {
	t.Helper()
	root, err := image.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	cache, err := image.DefaultCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	img, err := osimage.BuildFromSource(ctx, root, cache)
	if err != nil {
		t.Fatalf("building the OS disk image: %v", err)
	}
	t.Logf("OS disk image ready in %s: %s (%d MiB)", time.Since(start).Round(100*time.Millisecond), img.Path, img.Size>>20)
	return img
}

// newInstallBed starts rackbootd with the install config in a namespace
// with a tap per node. On failure the daemon's log and every VM's console
// tail are logged.
func newInstallBed(t *testing.T, nodes []installbed.Node, generator string) *installbed.Bed {
	t.Helper()
	requireE2E(t, "gcc", "sgdisk", "mcopy", "objcopy")
	ctx := t.Context()
	m := liveMirror(t, ctx)
	root, err := image.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := os.Getenv("RACKBOOT_E2E_RACKBOOTD") // a daemon built elsewhere (its rackbootctl next to it)
	if bin == "" {
		bin = rackbootd(t)
	}
	bed, err := installbed.Start(ctx, installbed.Options{Rackbootd: bin, Rackbootctl: filepath.Join(filepath.Dir(bin), "rackbootctl"),
		Mirror: m, AgentDir: coreosimage.AgentDir(root), Generator: generator, Nodes: nodes, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("--- rackbootd (last 150 lines) ---\n%s", tailLines(bed.DaemonLog(), 150))
			for _, vm := range bed.VMs() {
				t.Logf("--- %s console (last 60 lines) ---\n%s\n--- qemu stderr ---\n%s", vm.Node.Name, vm.ConsoleTail(60), vm.Stderr())
			}
		}
		bed.Close()
	})
	return bed
}

func tailLines(s string, n int) string {
	l := strings.SplitAfter(s, "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "")
}

// bedCtl runs rackbootctl in the bed and fails the test if it fails.
func bedCtl(t *testing.T, bed *installbed.Bed, args ...string) string {
	t.Helper()
	out, err := bed.Ctl(t.Context(), args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// bedAPI is the bed's API client.
func bedAPI(t *testing.T, bed *installbed.Bed) *client.Client {
	t.Helper()
	c, err := bed.API()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// discover waits until every node registered into cluster id and is known
// (validations pass), approving each with `rackbootctl approve host NAME`
// and giving it its role with `rackbootctl patch host NAME --role`.
func discover(t *testing.T, bed *installbed.Bed, id string, nodes []installbed.Node, roles map[string]string) []*client.Host {
	t.Helper()
	ctx := t.Context()
	c := bedAPI(t, bed)
	named := func(hs []*client.Host) map[string]*client.Host {
		m := map[string]*client.Host{}
		for _, h := range hs {
			m[installbed.Hostname(h)] = h
		}
		return m
	}
	_, err := installbed.WaitHosts(ctx, c, id, discoveredLimit, func(hs []*client.Host) bool {
		m := named(hs)
		for _, n := range nodes {
			if h := m[n.Name]; h == nil || h.Inventory == "" {
				return false
			}
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		bedCtl(t, bed, "approve", "host", n.Name)
		bedCtl(t, bed, "patch", "host", n.Name, "--role", roles[n.Name])
	}
	hs, err := installbed.WaitHosts(ctx, c, id, discoveredLimit, func(hs []*client.Host) bool {
		m := named(hs)
		for _, n := range nodes {
			if h := m[n.Name]; h == nil || h.Status != models.HostStatusKnown || !h.Approved {
				return false
			}
		}
		return true
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, bedCtl(t, bed, "describe", "cluster", id))
	}
	return hs
}

// install runs `rackbootctl install NAME` and waits until the cluster is
// installed; it returns the cluster and the wall time to it.
func install(t *testing.T, bed *installbed.Bed, id, name string) (*client.Cluster, time.Duration) {
	t.Helper()
	start := time.Now()
	out := bedCtl(t, bed, "install", name)
	if !strings.HasPrefix(out, "cluster/"+id+" ") {
		t.Errorf("rackbootctl install %s printed %q", name, out)
	}
	cl, err := installbed.WaitCluster(t.Context(), bedAPI(t, bed), id, installLimit, "installed")
	if err != nil {
		t.Fatal(err)
	}
	return cl, time.Since(start).Round(time.Second)
}

// assertInstalled checks what the user sees of an installed cluster: its
// status in `rackbootctl get clusters`, every host installed at stage Done
// in `rackbootctl get hosts`, and each VM's console: the installed OS
// booted once, applied its role config and reported Done, with no secret.
func assertInstalled(t *testing.T, bed *installbed.Bed, id string, vms []*installbed.VM, roles map[string]string) {
	t.Helper()
	row := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(id) + `\s+\S+\s+4\.16\s+` + regexp.QuoteMeta(installbed.BaseDomain) + `\s+\d+\s+\d+\s+installed\s`)
	if out := bedCtl(t, bed, "get", "clusters"); !row.MatchString(out) {
		t.Errorf("rackbootctl get clusters does not show %s installed:\n%s", id, out)
	}
	out := bedCtl(t, bed, "get", "hosts", "--cluster", id)
	for _, vm := range vms {
		re := regexp.MustCompile(`(?m)^\S+\s+` + regexp.QuoteMeta(vm.Node.Name) + `\s+` + roles[vm.Node.Name] + `\s+installed\s+true\s.*\sDone( 100%)?$`)
		if !re.MatchString(out) {
			t.Errorf("rackbootctl get hosts does not show %s installed, role %s, stage Done:\n%s", vm.Node.Name, roles[vm.Node.Name], out)
		}
		// The first boot reports Done from its first unit; the role
		// config's unit and the end of the first boot come after.
		if err := vm.AwaitCount(t.Context(), installbed.MarkerOSReady, 1, 2*time.Minute); err != nil {
			t.Errorf("%s: the installed system's first boot did not end: %v", vm.Node.Name, err)
		}
		console := vm.Console()
		for _, want := range []string{installbed.MarkerOSBoot, installbed.MarkerFirstBootDone,
			installbed.MarkerRole + " " + roles[vm.Node.Name] + " " + vm.Node.Name} {
			if !strings.Contains(console, want) {
				t.Errorf("%s: the installed system never printed %q", vm.Node.Name, want)
			}
		}
		if n := vm.Count(installbed.MarkerOSBoot); n != 1 {
			t.Errorf("%s: the installed OS booted %d times, want once", vm.Node.Name, n)
		}
		assertNoSecrets(t, vm.Node.Name, console, jwtHeader)
		assertExitScript(t, bed, vm.Node)
		for _, s := range []string{"dGVzdGJlZDpzZWtyaXQ=", bed.Token} {
			if strings.Contains(console, s) {
				t.Errorf("%s: a secret reached the console", vm.Node.Name)
			}
		}
	}
	progress := bedCtl(t, bed, "get", "hosts", "--cluster", id, "-o", "progress")
	if n := strings.Count(progress, "████████████████████████ 100%"); n != len(vms) {
		t.Errorf("rackbootctl get hosts -o progress shows %d full bars, want %d:\n%s", n, len(vms), progress)
	}
	t.Logf("rackbootctl get hosts -o progress:\n%s", progress)
}

// assertExitScript: boot-order control — an installed host's iPXE script
// from rackbootd only exits (to the next boot device), it boots nothing.
func assertExitScript(t *testing.T, bed *installbed.Bed, n installbed.Node) {
	t.Helper()
	s, err := bed.BootScript(t.Context(), n.MAC)
	if err != nil {
		t.Errorf("%s: its iPXE script: %v", n.Name, err)
		return
	}
	lines := strings.Fields(s)
	if len(lines) < 2 || lines[0] != "#!ipxe" || lines[1] != "exit" || strings.Contains(s, "kernel") {
		t.Errorf("%s is installed but its iPXE script is not just exit:\n%s", n.Name, s)
	}
}

// timeline logs where the installation's time went and appends it to
// RACKBOOT_BENCH_OUT (a file), when set, for docs/benchmarks.md.
func timeline(t *testing.T, bed *installbed.Bed, id, title string, vms []*installbed.VM, wall time.Duration) {
	t.Helper()
	tl, err := installbed.Collect(t.Context(), bedAPI(t, bed), id, vms, 0)
	if err != nil {
		t.Errorf("collecting the timeline: %v", err)
		return
	}
	md := "### " + title + "\n\n" + tl.Markdown() + "Wall time of `rackbootctl install` to installed, as the test saw it: " + wall.String() + ".\n\n"
	t.Logf("where the time went:\n%s", md)
	if out := os.Getenv("RACKBOOT_BENCH_OUT"); out != "" {
		f, err := os.OpenFile(out, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			t.Errorf("RACKBOOT_BENCH_OUT: %v", err)
			return
		}
		defer f.Close()
		f.WriteString(md)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
