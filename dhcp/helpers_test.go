package dhcp

import (
	"context"
	"encoding/hex"
	"flag"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/insomniacslk/dhcp/iana"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/golden")

var (
	macReserved = mustMAC("52:54:00:00:00:01")
	macDynamic  = mustMAC("52:54:00:00:00:42")
	macOther    = mustMAC("52:54:00:00:00:43")
	testXID     = dhcpv4.TransactionID{0xde, 0xad, 0xbe, 0xef}
	testGUID    = append([]byte{0}, []byte("0123456789abcdef")...)
	fixedNow    = time.Date(2026, 11, 21, 5, 0, 0, 0, time.UTC)
)

func mustMAC(s string) net.HardwareAddr {
	m, err := net.ParseMAC(s)
	if err != nil {
		panic(err)
	}
	return m
}

func testConfig() Config {
	return Config{
		ServerIP:   netip.MustParseAddr("10.99.0.1"),
		Subnet:     netip.MustParsePrefix("10.99.0.0/24"),
		Ranges:     []Range{{netip.MustParseAddr("10.99.0.100"), netip.MustParseAddr("10.99.0.200")}},
		Router:     netip.MustParseAddr("10.99.0.1"),
		DNS:        []netip.Addr{netip.MustParseAddr("10.99.0.1")},
		DomainName: "rack.example",
		Reservations: []Reservation{
			{MAC: macReserved, IP: netip.MustParseAddr("10.99.0.11"), Hostname: "master-0"},
		},
		HTTPBase: "http://10.99.0.1:8080",
	}
}

// newTestServer returns a server over memory leases with a fixed clock.
func newTestServer(t testing.TB, cfg Config, booter Booter) (*Server, *MemoryLeases) {
	t.Helper()
	leases := NewMemoryLeases()
	s, err := New(cfg, leases, booter, nil)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	s.now = func() time.Time { return fixedNow }
	return s, leases
}

// packet builds a client request with the fixed xid.
func packet(t testing.TB, mt dhcpv4.MessageType, mac net.HardwareAddr, mods ...dhcpv4.Modifier) *dhcpv4.DHCPv4 {
	t.Helper()
	base := []dhcpv4.Modifier{
		dhcpv4.WithTransactionID(testXID),
		dhcpv4.WithHwAddr(mac),
		dhcpv4.WithMessageType(mt),
	}
	p, err := dhcpv4.New(append(base, mods...)...)
	if err != nil {
		t.Fatal(err)
	}
	// Round-trip through the wire format, as the server sees packets.
	q, err := dhcpv4.FromBytes(p.ToBytes())
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func withPXE(arch iana.Arch, class string) []dhcpv4.Modifier {
	return []dhcpv4.Modifier{
		dhcpv4.WithOption(dhcpv4.OptClassIdentifier(class)),
		dhcpv4.WithOption(dhcpv4.OptClientArch(arch)),
		dhcpv4.WithGeneric(dhcpv4.OptionClientNetworkInterfaceIdentifier, []byte{1, 3, 16}),
		dhcpv4.WithGeneric(dhcpv4.OptionClientMachineIdentifier, testGUID),
	}
}

func withIPXE() []dhcpv4.Modifier {
	return append(withPXE(iana.INTEL_X86PC, "PXEClient:Arch:00000:UNDI:002001"),
		dhcpv4.WithUserClass("iPXE", false),
		dhcpv4.WithGeneric(dhcpv4.GenericOptionCode(175), []byte{0xb1, 0x05, 0x01, 0x80, 0x86, 0x10, 0x0e}),
	)
}

func withRequested(ip string) dhcpv4.Modifier {
	return dhcpv4.WithOption(dhcpv4.OptRequestedIPAddress(net.ParseIP(ip)))
}

func withServerID(ip string) dhcpv4.Modifier {
	return dhcpv4.WithOption(dhcpv4.OptServerIdentifier(net.ParseIP(ip)))
}

// mustHandle runs handle and fails on error.
func mustHandle(t testing.TB, s *Server, req *dhcpv4.DHCPv4, port4011 bool) *dhcpv4.DHCPv4 {
	t.Helper()
	r, err := s.handle(context.Background(), req, port4011)
	if err != nil {
		t.Fatalf("handle(%v): %v", req.MessageType(), err)
	}
	return r
}

// checkGolden compares a reply's summary and bytes with testdata/golden/name.
func checkGolden(t *testing.T, name string, p *dhcpv4.DHCPv4) {
	t.Helper()
	got := "reply: nil\n"
	if p != nil {
		got = p.Summary() + "\nbytes:\n" + hex.Dump(p.ToBytes())
	}
	path := filepath.Join("testdata", "golden", name+".txt")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("reply differs from %s (run with -update to accept):\n got:\n%s\nwant:\n%s", path, got, want)
	}
}

func opt(p *dhcpv4.DHCPv4, code uint8) string {
	return string(p.Options.Get(dhcpv4.GenericOptionCode(code)))
}

func hasPrefix(s, p string) bool { return strings.HasPrefix(s, p) }
