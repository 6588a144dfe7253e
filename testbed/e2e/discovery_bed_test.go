package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/engine/validation"
	"github.com/rackboot/rackboot/testbed/coreosimage"
	"github.com/rackboot/rackboot/testbed/image"
	"github.com/rackboot/rackboot/testbed/netns"
	"github.com/rackboot/rackboot/testbed/qemu"
)

// discoHost is one VM of the discovery tests: its firmware, NIC, hardware
// and the hostname its DHCP reservation gives it.
type discoHost struct {
	name  string
	fw    qemu.Firmware
	mac   string
	ip    string
	tap   string
	cpus  int
	memMB int
	disks []int64 // sizes in GiB, serials rb-<name>-<n>
}

// discoHosts are two SeaBIOS VMs and one OVMF VM with different disks; the
// last has less RAM than the testbed profile's minimum for any role.
var discoHosts = []discoHost{
	{name: "disco-bios", fw: qemu.BIOS, mac: "52:54:00:00:d0:01", ip: "10.99.0.21", tap: "tap0", cpus: 2, memMB: 1536, disks: []int64{30, 8}},
	{name: "disco-uefi", fw: qemu.UEFI, mac: "52:54:00:00:d0:02", ip: "10.99.0.22", tap: "tap1", cpus: 2, memMB: 1536, disks: []int64{25}},
	{name: "disco-small", fw: qemu.BIOS, mac: "52:54:00:00:d0:03", ip: "10.99.0.23", tap: "tap2", cpus: 1, memMB: 768, disks: []int64{40}},
}

// smallHost is the host that fails a hardware threshold.
const smallHost = "disco-small"

// testbedThresholds is the explicit profile the testbed's small VMs pass
// with (upstream's minimums are far above any TCG VM).
func testbedThresholds() validation.Thresholds {
	th, err := validation.DefaultThresholds().Override(validation.Thresholds{
		Profile: "testbed-small-vms",
		Master:  validation.Requirements{CPUCores: 2, MemoryMiB: 1024, DiskGB: 20},
		Worker:  validation.Requirements{CPUCores: 1, MemoryMiB: 1024, DiskGB: 20},
		// a TCG guest's fdatasync is far slower than upstream's 10 ms
		DiskSpeedThresholdMs: 2000,
	})
	if err != nil {
		panic(err)
	}
	return th
}

// liveMirror publishes (or takes from the cache) the CoreOS-shaped live
// image set and metal image, with its stream.json, from this repository.
func liveMirror(t *testing.T, ctx context.Context) coreosimage.Mirror {
	t.Helper()
	start := time.Now()
	m, err := coreosimage.BuildDefault(ctx)
	if err != nil {
		t.Fatalf("building the CoreOS-shaped images: %v", err)
	}
	t.Logf("CoreOS-shaped mirror ready in %s: %s", time.Since(start).Round(100*time.Millisecond), m.Stream)
	return m
}

// addTaps adds the taps of discoHosts other than tap0 (newSegment's).
func addTaps(t *testing.T, ctx context.Context, ns *netns.NS) {
	t.Helper()
	for _, h := range discoHosts {
		if h.tap == tap {
			continue
		}
		if err := ns.AddTap(ctx, h.tap, bridge); err != nil {
			t.Fatal(err)
		}
	}
}

// vmExtra is the QEMU arguments for h's CPUs and sparse virtio disks.
func vmExtra(t *testing.T, h discoHost, dir string) []string {
	t.Helper()
	args := []string{"-smp", strconv.Itoa(h.cpus)}
	for i, gib := range h.disks {
		file := filepath.Join(dir, fmt.Sprintf("disk%d.img", i))
		f, err := os.Create(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(gib << 30); err != nil {
			t.Fatal(err)
		}
		f.Close()
		id := fmt.Sprintf("d%d", i)
		args = append(args, "-drive", "if=none,id="+id+",format=raw,file="+file,
			"-device", "virtio-blk-pci,drive="+id+",serial="+diskSerial(h, i))
	}
	return args
}

func diskSerial(h discoHost, i int) string { return fmt.Sprintf("rb-%s-%d", h.name, i) }

// agentStartRE marks the agent's first start on a discovery console.
var agentStartRE = regexp.MustCompile(regexp.QuoteMeta(image.MarkerAgentStart))

// startDiscoVM powers on h with extra arguments (a direct kernel boot, or
// none for a network boot) and waits until its agent starts. The VM runs
// until the test ends; a failed test logs its console.
func startDiscoVM(t *testing.T, ctx context.Context, ns *netns.NS, h discoHost, extra ...string) *qemu.VM {
	t.Helper()
	dir := t.TempDir()
	cfg := qemu.Config{Firmware: h.fw, MAC: h.mac, Tap: h.tap, Dir: dir, MemoryMB: h.memMB, NoReboot: true,
		Extra: append(vmExtra(t, h, dir), extra...)}
	vm, err := qemu.Start(ctx, ns, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		vm.Stop()
		if t.Failed() {
			t.Logf("--- %s (%s) console, last 60 lines ---\n%s\n--- qemu stderr ---\n%s", h.name, h.fw, vm.ConsoleTail(60), vm.Stderr())
		}
	})
	return vm
}

// waitAgent waits until vm's agent has started and checks what the image
// said on the way: Ignition applied, no errors.
func waitAgent(t *testing.T, ctx context.Context, h discoHost, vm *qemu.VM, started time.Time) {
	t.Helper()
	wctx, cancel := context.WithTimeout(ctx, 2*bootLimit(h.fw))
	defer cancel()
	if _, err := vm.WaitFor(wctx, agentStartRE); err != nil {
		t.Fatalf("%s: the agent never started: %v", h.name, err)
	}
	t.Logf("%s (%s): power-on to agent start in %s", h.name, h.fw, time.Since(started).Round(100*time.Millisecond))
	console := vm.Console()
	if !strings.Contains(console, image.MarkerIgnitionApplied) {
		t.Errorf("%s: Ignition did not report success", h.name)
	}
	if errs := image.Errors(console); len(errs) > 0 {
		t.Errorf("%s: the image reported errors: %q", h.name, errs)
	}
}

// apiClient talks to the REST API inside the namespace as the admin.
type apiClient struct {
	t     *testing.T
	http  *http.Client
	base  string // http://10.99.0.1:port + api.BasePath
	token string
}

// do sends body (nil or a value to encode) and decodes a 2xx answer into
// out (when not nil). It returns the status and the raw body.
func (c *apiClient) do(method, path string, body, out any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, nil, err
	}
	if resp.StatusCode/100 == 2 && out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return resp.StatusCode, b, fmt.Errorf("decoding %s %s: %w", method, path, err)
		}
	}
	return resp.StatusCode, b, nil
}

// must is do that fails the test on a transport error or another status.
func (c *apiClient) must(want int, method, path string, body, out any) []byte {
	c.t.Helper()
	code, b, err := c.do(method, path, body, out)
	if err != nil || code != want {
		c.t.Fatalf("%s %s: %d %v, want %d: %s", method, path, code, err, want, b)
	}
	return b
}

// testPullSecret and testSSHKey are an infra-env's secrets: neither may show
// on a console or in the API's answers.
const (
	testPullSecret = `{"auths":{"quay.io":{"auth":"dGVzdGJlZDpzZWtyaXQ=","email":"ops@example.com"}}}`
	testSSHKey     = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOSXuCdeXfbIz7N1frVxVh7RLkDKcDLxqCJzgFHQE3s2 ops@testbed"
)

// createInfraEnv makes the testbed's infra-env and returns it.
func createInfraEnv(c *apiClient) models.InfraEnv {
	c.t.Helper()
	name, ps, key := "testbed", testPullSecret, testSSHKey
	var ie models.InfraEnv
	c.must(http.StatusCreated, "POST", "/infra-envs", models.InfraEnvCreateParams{
		Name: &name, PullSecret: &ps, SSHAuthorizedKey: &key, CPUArchitecture: "x86_64",
	}, &ie)
	return ie
}

// listHosts is GET /infra-envs/{id}/hosts.
func listHosts(c *apiClient, infraEnv string) ([]models.APIHost, error) {
	var hs []models.APIHost
	code, b, err := c.do("GET", "/infra-envs/"+infraEnv+"/hosts", nil, &hs)
	if err == nil && code != http.StatusOK {
		err = fmt.Errorf("GET hosts: %d %s", code, b)
	}
	return hs, err
}

// waitHosts polls the host list until done accepts it or the deadline.
func waitHosts(ctx context.Context, c *apiClient, infraEnv string, limit time.Duration, done func([]models.APIHost) bool) ([]models.APIHost, error) {
	deadline := time.Now().Add(limit)
	for {
		hs, err := listHosts(c, infraEnv)
		if err == nil && done(hs) {
			return hs, nil
		}
		if time.Now().After(deadline) {
			return hs, fmt.Errorf("hosts not as expected after %s (last error %v)", limit, err)
		}
		select {
		case <-ctx.Done():
			return hs, ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}
}

// hostByMAC finds the registered host whose inventory lists mac.
func hostByMAC(hs []models.APIHost, mac string) (models.APIHost, *models.Inventory, bool) {
	for _, h := range hs {
		if h.Inventory == "" {
			continue
		}
		var inv models.Inventory
		if json.Unmarshal([]byte(h.Inventory), &inv) != nil {
			continue
		}
		for _, ifc := range inv.Interfaces {
			if ifc != nil && strings.EqualFold(ifc.MacAddress, mac) {
				return h, &inv, true
			}
		}
	}
	return models.APIHost{}, nil, false
}

// assertAgentsCarriedOn: no agent exited (and was restarted by /init)
// while the appliance was down: each rode it out with its backoff.
func assertAgentsCarriedOn(t *testing.T, vms []*qemu.VM) {
	t.Helper()
	for i, vm := range vms {
		console := vm.Console()
		if n := strings.Count(console, image.MarkerAgentStart); n != 1 || strings.Contains(console, image.MarkerAgentExit) {
			t.Errorf("%s: the agent started %d times and exited: %t", discoHosts[i].name, n, strings.Contains(console, image.MarkerAgentExit))
		}
	}
}
