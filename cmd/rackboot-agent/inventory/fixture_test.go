package inventory

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden inventory files")

func mustMAC(s string) net.HardwareAddr {
	m, err := net.ParseMAC(s)
	if err != nil {
		panic(err)
	}
	return m
}

// fixtures pairs each fixture tree with the interfaces its VM had.
var fixtures = map[string]struct {
	arch string
	net  FixedNet
}{
	"qemu-bios": {"amd64", FixedNet{
		{Name: "lo", MTU: 65536, Flags: net.FlagUp | net.FlagLoopback | net.FlagRunning,
			Addrs: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/8"), netip.MustParsePrefix("::1/128")}},
		{Name: "ens3", MTU: 1500, HardwareAddr: mustMAC("52:54:00:12:34:01"),
			Flags: net.FlagUp | net.FlagBroadcast | net.FlagMulticast | net.FlagRunning,
			Addrs: []netip.Prefix{
				netip.MustParsePrefix("10.55.0.23/16"), netip.MustParsePrefix("169.254.3.4/16"),
				netip.MustParsePrefix("fd00:55::10/64"), netip.MustParsePrefix("fe80::5054:ff:fe12:3401/64"),
			}},
		{Name: "br0", MTU: 1500, HardwareAddr: mustMAC("52:54:00:12:34:99"),
			Flags: net.FlagBroadcast | net.FlagMulticast},
	}},
	"qemu-uefi-arm64": {"arm64", FixedNet{
		{Name: "lo", MTU: 65536, Flags: net.FlagUp | net.FlagLoopback | net.FlagRunning},
		{Name: "eth0", MTU: 9000, HardwareAddr: mustMAC("52:54:00:aa:00:02"),
			Flags: net.FlagUp | net.FlagBroadcast | net.FlagMulticast | net.FlagRunning},
		{Name: "bond0", MTU: 9000, HardwareAddr: mustMAC("52:54:00:aa:00:02"),
			Flags: net.FlagUp | net.FlagBroadcast | net.FlagMulticast | net.FlagRunning,
			Addrs: []netip.Prefix{netip.MustParsePrefix("192.168.1.50/24")}},
		{Name: "veth9", MTU: 1500, HardwareAddr: mustMAC("0e:00:00:00:00:09"), Flags: net.FlagUp | net.FlagRunning},
	}},
}

// TestFixtureGolden collects the inventory of each fixture tree and
// compares it with testdata/<fixture>.json (go test -update rewrites it).
func TestFixtureGolden(t *testing.T) {
	for name, fx := range fixtures {
		t.Run(name, func(t *testing.T) {
			c := Collector{FS: os.DirFS(filepath.Join("testdata", name)), Net: fx.net, Arch: fx.arch}
			inv, err := c.Collect(context.Background())
			if err != nil {
				t.Fatalf("Collect: %v", err)
			}
			got, err := json.MarshalIndent(inv, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden := filepath.Join("testdata", name+".json")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("inventory differs from %s (run with -update to accept):\n%s", golden, got)
			}
			if strings.Contains(string(got), "secret") {
				t.Errorf("a token from the kernel command line reached the inventory")
			}
		})
	}
}
