package dhcp

import (
	"net"
	"testing"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/insomniacslk/dhcp/iana"
)

// TestGoldenReplies pins the reply packets of the netboot variants.
func TestGoldenReplies(t *testing.T) {
	relay := []dhcpv4.Modifier{
		dhcpv4.WithGatewayIP(net.ParseIP("10.99.0.254")),
		dhcpv4.WithOption(dhcpv4.OptRelayAgentInfo(dhcpv4.OptGeneric(dhcpv4.GenericOptionCode(1), []byte("port7")))),
	}
	cases := []struct {
		name     string
		mode     Mode
		mt       dhcpv4.MessageType
		mac      net.HardwareAddr
		port4011 bool
		mods     []dhcpv4.Modifier
	}{
		{"plain-offer", ModeFull, dhcpv4.MessageTypeDiscover, macDynamic, false, nil},
		{"reserved-ack", ModeFull, dhcpv4.MessageTypeRequest, macReserved, false, []dhcpv4.Modifier{withRequested("10.99.0.11"), withServerID("10.99.0.1")}},
		{"bios", ModeFull, dhcpv4.MessageTypeDiscover, macDynamic, false, withPXE(iana.INTEL_X86PC, "PXEClient:Arch:00000:UNDI:002001")},
		{"uefi-x64", ModeFull, dhcpv4.MessageTypeDiscover, macDynamic, false, withPXE(iana.EFI_X86_64, "PXEClient:Arch:00007:UNDI:003016")},
		{"uefi-bc", ModeFull, dhcpv4.MessageTypeDiscover, macDynamic, false, withPXE(iana.EFI_BC, "PXEClient:Arch:00009:UNDI:003016")},
		{"arm64", ModeFull, dhcpv4.MessageTypeDiscover, macDynamic, false, withPXE(iana.EFI_ARM64, "PXEClient:Arch:00011:UNDI:003000")},
		{"http16", ModeFull, dhcpv4.MessageTypeDiscover, macDynamic, false, withPXE(iana.EFI_X86_64_HTTP, "HTTPClient:Arch:00016:UNDI:003001")},
		{"http19", ModeFull, dhcpv4.MessageTypeDiscover, macDynamic, false, withPXE(iana.EFI_ARM64_HTTP, "HTTPClient:Arch:00019:UNDI:003001")},
		{"ipxe", ModeFull, dhcpv4.MessageTypeDiscover, macReserved, false, withIPXE()},
		{"relay-offer", ModeFull, dhcpv4.MessageTypeDiscover, macDynamic, false, relay},
		{"nak", ModeFull, dhcpv4.MessageTypeRequest, macReserved, false, []dhcpv4.Modifier{withRequested("10.99.0.150")}},
		{"proxy-bios", ModeProxy, dhcpv4.MessageTypeDiscover, macDynamic, false, withPXE(iana.INTEL_X86PC, "PXEClient:Arch:00000:UNDI:002001")},
		{"proxy-uefi-4011", ModeProxy, dhcpv4.MessageTypeRequest, macDynamic, true,
			append(withPXE(iana.EFI_X86_64, "PXEClient:Arch:00007:UNDI:003016"), dhcpv4.WithClientIP(net.ParseIP("192.168.1.50")))},
		{"proxy-ipxe", ModeProxy, dhcpv4.MessageTypeDiscover, macDynamic, false, withIPXE()},
		{"proxy-http16", ModeProxy, dhcpv4.MessageTypeDiscover, macDynamic, false, withPXE(iana.EFI_X86_64_HTTP, "HTTPClient:Arch:00016:UNDI:003001")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.Mode = tc.mode
			s, _ := newTestServer(t, cfg, nil)
			r := mustHandle(t, s, packet(t, tc.mt, tc.mac, tc.mods...), tc.port4011)
			if r == nil {
				t.Fatal("no reply")
			}
			checkGolden(t, tc.name, r)
		})
	}
}
