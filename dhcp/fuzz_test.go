package dhcp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/insomniacslk/dhcp/iana"
)

// fuzzSeeds are the requests of the golden and behaviour tests.
func fuzzSeeds(t testing.TB) map[string][]byte {
	seeds := map[string][]byte{
		"discover":   packet(t, dhcpv4.MessageTypeDiscover, macDynamic).ToBytes(),
		"request":    packet(t, dhcpv4.MessageTypeRequest, macDynamic, withRequested("10.99.0.150"), withServerID("10.99.0.1")).ToBytes(),
		"renew":      packet(t, dhcpv4.MessageTypeRequest, macDynamic, dhcpv4.WithClientIP([]byte{10, 99, 0, 150})).ToBytes(),
		"release":    packet(t, dhcpv4.MessageTypeRelease, macDynamic, dhcpv4.WithClientIP([]byte{10, 99, 0, 150})).ToBytes(),
		"decline":    packet(t, dhcpv4.MessageTypeDecline, macDynamic, withRequested("10.99.0.150")).ToBytes(),
		"inform":     packet(t, dhcpv4.MessageTypeInform, macDynamic, dhcpv4.WithClientIP([]byte{10, 99, 0, 150})).ToBytes(),
		"bios":       packet(t, dhcpv4.MessageTypeDiscover, macDynamic, withPXE(iana.INTEL_X86PC, "PXEClient:Arch:00000:UNDI:002001")...).ToBytes(),
		"uefi":       packet(t, dhcpv4.MessageTypeDiscover, macDynamic, withPXE(iana.EFI_X86_64, "PXEClient:Arch:00007:UNDI:003016")...).ToBytes(),
		"http":       packet(t, dhcpv4.MessageTypeDiscover, macDynamic, withPXE(iana.EFI_X86_64_HTTP, "HTTPClient:Arch:00016")...).ToBytes(),
		"ipxe":       packet(t, dhcpv4.MessageTypeDiscover, macReserved, withIPXE()...).ToBytes(),
		"relay":      packet(t, dhcpv4.MessageTypeDiscover, macDynamic, dhcpv4.WithGatewayIP([]byte{10, 99, 0, 254})).ToBytes(),
		"proxy-4011": packet(t, dhcpv4.MessageTypeRequest, macDynamic, withPXE(iana.EFI_X86_64, "PXEClient")...).ToBytes(),
		"short-guid": packet(t, dhcpv4.MessageTypeDiscover, macDynamic, append(withPXE(iana.EFI_ARM64, "PXEClient"), dhcpv4.WithGeneric(dhcpv4.OptionClientMachineIdentifier, []byte{0}))...).ToBytes(),
		"truncated":  packet(t, dhcpv4.MessageTypeDiscover, macDynamic).ToBytes()[:200],
		"empty":      {},
	}
	return seeds
}

// FuzzHandle decodes arbitrary bytes and handles them in both modes, on both
// ports: no panic, and any reply answers the same transaction and, in proxy
// mode, hands out no address.
func FuzzHandle(f *testing.F) {
	for _, b := range fuzzSeeds(f) {
		f.Add(b)
	}
	full, _ := newTestServer(f, testConfig(), nil)
	pcfg := testConfig()
	pcfg.Mode = ModeProxy
	proxy, _ := newTestServer(f, pcfg, nil)
	f.Fuzz(func(t *testing.T, data []byte) {
		req, err := dhcpv4.FromBytes(data)
		if err != nil {
			return
		}
		for _, s := range []*Server{full, proxy} {
			for _, port4011 := range []bool{false, true} {
				r, err := s.handle(context.Background(), req, port4011)
				if r == nil {
					continue
				}
				if err != nil {
					t.Fatalf("reply and error: %v", err)
				}
				if r.TransactionID != req.TransactionID || r.OpCode != dhcpv4.OpcodeBootReply {
					t.Fatalf("reply does not answer the request: %v", r)
				}
				if (s == proxy || port4011) && !r.YourIPAddr.IsUnspecified() {
					t.Fatalf("proxy reply hands out %v", r.YourIPAddr)
				}
				_ = r.ToBytes()
				_ = replyAddr(req, r, nil)
			}
		}
	})
}

// TestFuzzCorpus keeps testdata/fuzz/FuzzHandle in step with fuzzSeeds
// (-update rewrites it).
func TestFuzzCorpus(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzHandle")
	for name, b := range fuzzSeeds(t) {
		want := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", b)
		path := filepath.Join(dir, "seed-"+name)
		if *update {
			os.MkdirAll(dir, 0o755)
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != want {
			t.Errorf("%s is missing or stale (run with -update): %v", path, err)
		}
	}
}
