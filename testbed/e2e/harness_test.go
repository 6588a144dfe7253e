package e2e

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"testing"

	"github.com/cavaliergopher/cpio"

	"github.com/rackboot/rackboot/testbed/image"
	"github.com/rackboot/rackboot/testbed/qemu"
)

// harnessIgnition is the config.ign the harness appends to the image.
const harnessIgnition = `{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"/etc/motd","contents":{"source":"data:,harness"}}]}}`

// TestHarnessBIOSBootsWithDnsmasq checks the testbed without rackbootd:
// dnsmasq serves DHCP and TFTP, a Go file server serves the iPXE script,
// kernel and an initrd with a config.ign appended, and a SeaBIOS VM boots it.
func TestHarnessBIOSBootsWithDnsmasq(t *testing.T) {
	testHarness(t, qemu.BIOS, "52:54:00:99:00:01")
}

// TestHarnessUEFIBootsWithDnsmasq is the same through OVMF's PXE client,
// which TFTPs ipxe.efi from dnsmasq first.
func TestHarnessUEFIBootsWithDnsmasq(t *testing.T) {
	testHarness(t, qemu.UEFI, "52:54:00:99:00:02")
}

func testHarness(t *testing.T, fw qemu.Firmware, mac string) {
	requireE2E(t, "dnsmasq")
	ctx := t.Context()
	art := testImage(t, ctx)
	ns := newSegment(t, ctx)

	dir := t.TempDir()
	tftpRoot, httpRoot := filepath.Join(dir, "tftp"), filepath.Join(dir, "http")
	for _, d := range []string{tftpRoot, httpRoot} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	copyTo(t, filepath.Join(ipxeDir, "undionly.kpxe"), tftpRoot)
	copyTo(t, filepath.Join(ipxeDir, "ipxe.efi"), tftpRoot)
	copyTo(t, art.Kernel, httpRoot)
	writeInitrdWithIgnition(t, art.Initrd, filepath.Join(httpRoot, "initrd.img"), harnessIgnition)
	script := "#!ipxe\n" +
		"initrd --name initrd http://" + serverIP + ":8081/initrd.img\n" +
		"kernel http://" + serverIP + ":8081/vmlinuz initrd=initrd console=ttyS0\n" +
		"boot\n"
	if err := os.WriteFile(filepath.Join(httpRoot, "boot.ipxe"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	serveHTTP(t, ns, serverIP+":8081", httpRoot)
	startProc(t, ctx, ns, "dnsmasq", "--no-daemon", "--conf-file=/dev/null", "--port=0",
		"--interface="+bridge, "--bind-interfaces", "--log-dhcp",
		"--dhcp-range=10.99.0.50,10.99.0.90,1h", "--dhcp-leasefile="+filepath.Join(dir, "leases"),
		"--enable-tftp", "--tftp-root="+tftpRoot,
		"--dhcp-userclass=set:ipxe,iPXE", "--dhcp-match=set:efi64,option:client-arch,7",
		"--dhcp-boot=tag:ipxe,http://"+serverIP+":8081/boot.ipxe",
		"--dhcp-boot=tag:!ipxe,tag:efi64,ipxe.efi",
		"--dhcp-boot=tag:!ipxe,tag:!efi64,undionly.kpxe")

	console := boot(t, ctx, ns, fw, mac)
	lease, err := image.ParseLease(console)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("lease: %+v", lease)
	assertInRange(t, lease.IP, "10.99.0.50", "10.99.0.90")
	ign, err := image.ParseIgnition(console)
	if err != nil {
		t.Fatal(err)
	}
	assertSameJSON(t, ign, []byte(harnessIgnition))
}

func copyTo(t *testing.T, src, dir string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, filepath.Base(src)), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeInitrdWithIgnition does by hand what rackbootd does per host: the base
// initrd followed by a gzip newc cpio holding config.ign.
func writeInitrdWithIgnition(t *testing.T, base, dst, ign string) {
	t.Helper()
	b, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	buf.Write(b)
	zw := gzip.NewWriter(&buf)
	cw := cpio.NewWriter(zw)
	if err := cw.WriteHeader(&cpio.Header{Name: "config.ign", Mode: cpio.TypeReg | 0o644, Size: int64(len(ign))}); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(cw, ign); err != nil {
		t.Fatal(err)
	}
	if err := cw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func assertInRange(t *testing.T, ip, lo, hi string) {
	t.Helper()
	a, err := netip.ParseAddr(ip)
	if err != nil {
		t.Fatalf("lease address %q: %v", ip, err)
	}
	if a.Less(netip.MustParseAddr(lo)) || netip.MustParseAddr(hi).Less(a) {
		t.Errorf("lease address %s is outside %s-%s", ip, lo, hi)
	}
}

// assertSameJSON compares two JSON documents by value.
func assertSameJSON(t *testing.T, got, want []byte) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("config.ign on the console is not JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if !bytes.Equal(gb, wb) {
		t.Errorf("config.ign differs:\n got: %s\nwant: %s", gb, wb)
	}
}
