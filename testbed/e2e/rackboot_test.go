package e2e

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/testbed/image"
	"github.com/rackboot/rackboot/testbed/netns"
	"github.com/rackboot/rackboot/testbed/qemu"
)

// The profile's Ignition: what every host gets, before its own part.
const profileIgnition = `{
  "ignition": {"version": "3.4.0"},
  "passwd": {"users": [{"name": "core", "sshAuthorizedKeys": ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE2e core@rackboot-e2e"]}]},
  "storage": {"files": [{"path": "/etc/motd", "mode": 420, "contents": {"source": "data:,booted%20by%20rackboot%0A"}}]}
}
`

// The reservation of the test config.
const (
	reservedMAC      = "52:54:00:00:00:01"
	reservedIP       = "10.99.0.11"
	reservedHostname = "master-0"
)

// rackbootOptions vary the test config.
type rackbootOptions struct {
	mode string   // full or proxy
	macs []string // the profile's MACs; none makes it the default profile
}

// writeRackbootConfig writes a rackboot.toml (and its Ignition file) into a
// fresh directory and returns its path.
func writeRackbootConfig(t *testing.T, art image.Artifacts, o rackbootOptions) string {
	t.Helper()
	dir := t.TempDir()
	ign := filepath.Join(dir, "discovery.ign")
	if err := os.WriteFile(ign, []byte(profileIgnition), 0o644); err != nil {
		t.Fatal(err)
	}
	var dhcp string
	switch o.mode {
	case "full":
		dhcp = `[dhcp]
mode = "full"
interfaces = ["br0"]
subnet = "10.99.0.0/24"
range = ["10.99.0.100", "10.99.0.200"]
router = "10.99.0.1"
dns = ["10.99.0.1"]
lease_time = "1h"

[[dhcp.reservation]]
mac = "` + reservedMAC + `"
ip = "` + reservedIP + `"
hostname = "` + reservedHostname + `"
`
	case "proxy":
		dhcp = `[dhcp]
mode = "proxy"
interfaces = ["br0"]
`
	default:
		t.Fatalf("unknown mode %q", o.mode)
	}
	toml := fmt.Sprintf(`[server]
data_dir = %q
advertise = "10.99.0.1"
http_listen = "10.99.0.1:8080"
log_level = "debug"

%s
[tftp]
listen = ":69"
root = "/usr/lib/ipxe"

[[profile]]
name = "e2e"
kernel = %q
initrd = %q
cmdline = "console=ttyS0"
ignition = %q
macs = [%s]
`, filepath.Join(dir, "state"), dhcp, art.Kernel, art.Initrd, ign, quoteList(o.macs))
	path := filepath.Join(dir, "rackboot.toml")
	if err := os.WriteFile(path, []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func quoteList(l []string) string {
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

// rackbootd returns the path of the built daemon, failing when it is missing.
func rackbootd(t *testing.T) string {
	t.Helper()
	root, err := image.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(root, "bin", "rackbootd")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("RACKBOOT_E2E=1 but %v (run make build)", err)
	}
	return bin
}

// startRackbootd checks the config, runs the daemon in ns and waits until
// it answers /healthz.
func startRackbootd(t *testing.T, ctx context.Context, ns *netns.NS, config string) *proc {
	t.Helper()
	bin := rackbootd(t)
	if out, err := exec.CommandContext(ctx, bin, "check-config", config).CombinedOutput(); err != nil {
		b, _ := os.ReadFile(config)
		t.Fatalf("rackbootd check-config: %v\n%s\n--- config ---\n%s", err, out, b)
	}
	p := startProc(t, ctx, ns, bin, "--config", config)
	client := nsHTTPClient(ns)
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := client.Get("http://" + serverIP + ":8080/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p
			}
		}
		if perr := p.exited(); perr != nil {
			t.Fatal(perr)
		}
		if time.Now().After(deadline) {
			t.Fatalf("rackbootd did not answer /healthz within 30s: %v", err)
		}
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// nsHTTPClient is an HTTP client whose connections are made inside ns.
func nsHTTPClient(ns *netns.NS) *http.Client {
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		var c net.Conn
		err := ns.Do(func() (err error) {
			var d net.Dialer
			c, err = d.DialContext(ctx, network, addr)
			return err
		})
		return c, err
	}
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DialContext: dial, DisableKeepAlives: true}}
}

// TestBIOSBootsFromRackboot: a SeaBIOS VM whose iPXE ROM asks rackbootd for
// an address gets one from the range, boots the profile's kernel and
// per-host initrd, and finds the profile's Ignition (nothing merged: the
// MAC has no reservation) at /config.ign.
func TestBIOSBootsFromRackboot(t *testing.T) {
	testBootsFromRackboot(t, qemu.BIOS, "52:54:00:aa:00:01")
}

// TestUEFIBootsFromRackboot: the same through OVMF's own PXE client, which
// gets ipxe.efi over TFTP from rackbootd, then iPXE's HTTP script.
func TestUEFIBootsFromRackboot(t *testing.T) {
	testBootsFromRackboot(t, qemu.UEFI, "52:54:00:aa:00:02")
}

func testBootsFromRackboot(t *testing.T, fw qemu.Firmware, mac string) {
	requireE2E(t)
	ctx := t.Context()
	art := testImage(t, ctx)
	ns := newSegment(t, ctx)
	startRackbootd(t, ctx, ns, writeRackbootConfig(t, art, rackbootOptions{mode: "full"}))

	console := boot(t, ctx, ns, fw, mac)
	assertBootChain(t, console, fw, mac)
	lease := mustLease(t, console)
	assertInRange(t, lease.IP, "10.99.0.100", "10.99.0.200")
	if lease.Server != serverIP {
		t.Errorf("lease from server %q, want rackbootd at %s", lease.Server, serverIP)
	}
	assertSameIgnition(t, mustIgnition(t, console), []byte(profileIgnition))
}

// TestReservedHostGetsAddressAndHostname: a MAC with a reservation gets its
// reserved address, and its config.ign writes /etc/hostname with the
// reserved name on top of the profile's Ignition.
func TestReservedHostGetsAddressAndHostname(t *testing.T) {
	requireE2E(t)
	ctx := t.Context()
	art := testImage(t, ctx)
	ns := newSegment(t, ctx)
	startRackbootd(t, ctx, ns, writeRackbootConfig(t, art, rackbootOptions{mode: "full"}))

	console := boot(t, ctx, ns, qemu.BIOS, reservedMAC)
	assertBootChain(t, console, qemu.BIOS, reservedMAC)
	lease := mustLease(t, console)
	if lease.IP != reservedIP {
		t.Errorf("reserved host got %s, want %s", lease.IP, reservedIP)
	}
	if lease.Hostname != "" && lease.Hostname != reservedHostname {
		t.Errorf("DHCP hostname %q, want %q", lease.Hostname, reservedHostname)
	}
	ign := mustIgnition(t, console)
	got, err := fileContents(ign, "/etc/hostname")
	if err != nil {
		t.Fatalf("config.ign: %v\n%s", err, ign)
	}
	if strings.TrimSpace(got) != reservedHostname {
		t.Errorf("/etc/hostname in config.ign is %q, want %q", got, reservedHostname)
	}
	motd, err := fileContents(ign, "/etc/motd")
	if err != nil || motd != "booted by rackboot\n" {
		t.Errorf("the profile's /etc/motd is lost from the merged config.ign: %q, %v", motd, err)
	}
}

// TestProxyModeBootsNextToDnsmasq: dnsmasq, on another machine of the
// segment, hands out addresses only; rackbootd in proxy mode adds the boot
// information. The VM boots rackboot's image and its lease is dnsmasq's.
func TestProxyModeBootsNextToDnsmasq(t *testing.T) {
	testProxyMode(t, qemu.BIOS, "52:54:00:aa:00:03")
}

// TestProxyModeUEFIBootsNextToDnsmasq is the same with OVMF's PXE client,
// which takes the boot file from rackbootd's ProxyDHCP answer.
func TestProxyModeUEFIBootsNextToDnsmasq(t *testing.T) {
	testProxyMode(t, qemu.UEFI, "52:54:00:aa:00:04")
}

func testProxyMode(t *testing.T, fw qemu.Firmware, mac string) {
	requireE2E(t, "dnsmasq")
	ctx := t.Context()
	art := testImage(t, ctx)
	ns := newSegment(t, ctx)
	other, err := netns.New(ctx, nsPrefix+"-dhcp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	if err := ns.AddVethToBridge(ctx, bridge, other, "eth0", "10.99.0.2/24", ""); err != nil {
		t.Fatal(err)
	}
	startProc(t, ctx, other, "dnsmasq", "--no-daemon", "--conf-file=/dev/null", "--port=0",
		"--interface=eth0", "--bind-interfaces", "--log-dhcp",
		"--dhcp-range=10.99.0.50,10.99.0.90,1h", "--dhcp-leasefile="+filepath.Join(t.TempDir(), "leases"))
	startRackbootd(t, ctx, ns, writeRackbootConfig(t, art, rackbootOptions{mode: "proxy"}))

	console := boot(t, ctx, ns, fw, mac)
	assertBootChain(t, console, fw, mac)
	lease := mustLease(t, console)
	assertInRange(t, lease.IP, "10.99.0.50", "10.99.0.90")
	if lease.Server != "10.99.0.2" {
		t.Errorf("lease from server %q, want dnsmasq at 10.99.0.2", lease.Server)
	}
	assertSameIgnition(t, mustIgnition(t, console), []byte(profileIgnition))
}

// TestStrangerGetsNoBoot: with no default profile, a MAC that no profile
// names gets an address from the range in full mode but no boot file, so
// the firmware falls through to "No bootable device" and rackboot's kernel
// never runs.
func TestStrangerGetsNoBoot(t *testing.T) {
	requireE2E(t)
	ctx := t.Context()
	art := testImage(t, ctx)
	ns := newSegment(t, ctx)
	startRackbootd(t, ctx, ns, writeRackbootConfig(t, art, rackbootOptions{mode: "full", macs: []string{reservedMAC}}))

	const mac = "52:54:00:aa:00:09"
	_, console := bootUntil(t, ctx, ns, qemu.BIOS, mac, regexp.MustCompile(`No bootable device`))
	m := regexp.MustCompile(`net0: (10\.99\.0\.\d+)/255\.255\.255\.0`).FindStringSubmatch(console)
	if m == nil {
		t.Fatal("iPXE got no address from rackbootd")
	}
	assertInRange(t, m[1], "10.99.0.100", "10.99.0.200")
	for _, never := range []string{"/script.ipxe", "Linux version", "RACKBOOT-INIT"} {
		if strings.Contains(console, never) {
			t.Errorf("a MAC with no profile got as far as %q", never)
		}
	}
}

func mustLease(t *testing.T, console string) image.Lease {
	t.Helper()
	lease, err := image.ParseLease(console)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("lease: %+v", lease)
	return lease
}

func mustIgnition(t *testing.T, console string) []byte {
	t.Helper()
	ign, err := image.ParseIgnition(console)
	if err != nil {
		t.Fatal(err)
	}
	return ign
}

// assertBootChain checks, on the console, that the firmware went the way
// the test means: OVMF's own PXE client fetched ipxe.efi (UEFI), then iPXE
// fetched this MAC's script, initrd and kernel from rackbootd.
func assertBootChain(t *testing.T, console string, fw qemu.Firmware, mac string) {
	t.Helper()
	dir := regexp.QuoteMeta("http://" + serverIP + ":8080/boot/" + strings.ReplaceAll(mac, ":", "-"))
	want := []string{
		`iPXE initialising devices`,
		`Next server: ` + regexp.QuoteMeta(serverIP) + `\n`,
		`Filename: ` + dir + `/script\.ipxe\n`,
		dir + `/initrd\.\.\. ok`,
		dir + `/kernel\.\.\. ok`,
	}
	if fw == qemu.UEFI {
		want = append([]string{`>>Start PXE over IPv4`, `NBP filename is ipxe\.efi`, `NBP file downloaded successfully`}, want...)
	}
	rest := console
	for _, w := range want {
		loc := regexp.MustCompile(w).FindStringIndex(rest)
		if loc == nil {
			t.Errorf("the console does not show %q (in this order) on the way to booting", w)
			return
		}
		rest = rest[loc[1]:]
	}
}
