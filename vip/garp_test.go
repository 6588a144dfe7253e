package vip

import (
	"encoding/hex"
	"errors"
	"flag"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata")

// TestGARPFrames pins both gratuitous ARP frames byte for byte.
func TestGARPFrames(t *testing.T) {
	mac := net.HardwareAddr{0x52, 0x54, 0x00, 0x12, 0x34, 0x56}
	ip := netip.MustParseAddr("10.99.0.1")
	for _, tc := range []struct {
		name string
		op   uint16
	}{{"garp-request", opRequest}, {"garp-reply", opReply}} {
		t.Run(tc.name, func(t *testing.T) {
			got := hex.Dump(garpFrame(tc.op, mac, ip))
			path := filepath.Join("testdata", tc.name+".hex")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if got != string(want) {
				t.Errorf("frame differs from %s:\n%s\nwant:\n%s", path, got, want)
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		iface, addr string
		ok          bool
	}{
		{"br0", "10.99.0.1/24", true},
		{"eth0", "192.168.1.10/32", true},
		{"", "10.99.0.1/24", false},
		{"br0", "10.99.0.255/24", false},
		{"br0", "0.0.0.0/0", false},
		{"br0", "127.0.0.5/8", false},
		{"br0", "224.0.0.1/24", false},
		{"br0", "fd00::1/64", false},
	} {
		p, _ := netip.ParsePrefix(tc.addr)
		err := Config{Interface: tc.iface, Address: p}.Validate()
		if (err == nil) != tc.ok {
			t.Errorf("%q %q: err = %v, want ok=%v", tc.iface, tc.addr, err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrConfig) {
			t.Errorf("%q %q: %v does not wrap ErrConfig", tc.iface, tc.addr, err)
		}
	}
}

func TestNewUnknownInterface(t *testing.T) {
	_, err := New(Config{Interface: "no-such-if0", Address: netip.MustParsePrefix("10.99.0.1/24")})
	if !errors.Is(err, ErrConfig) {
		t.Fatalf("New on a missing interface: %v, want ErrConfig", err)
	}
}
