// Package dhcp is rackboot's DHCPv4 server.
//
// In full mode it hands out addresses from configured ranges and static
// reservations, keeps leases behind the Leases interface (durable
// implementation: package dhcp/leasefile), honours relay agents, and tells
// netboot clients what to boot. In proxy mode it coexists with another DHCP
// server and answers PXE and HTTP-boot clients with boot information only,
// on port 67 and on the PXE boot-server port 4011.
//
// Boot decisions follow the URL contract of the boot/httpboot package: iPXE
// clients get the URL of their per-MAC script, BIOS PXE clients
// undionly.kpxe, x86-64 UEFI ipxe.efi, ARM64 UEFI snp.efi, and UEFI HTTP-boot
// clients an HTTP URL of the matching iPXE binary. Whether a MAC boots at all
// is asked through the Booter interface.
//
// Packets are decoded with github.com/insomniacslk/dhcp/dhcpv4; the server
// loop, the allocation and the reply logic are this package's own.
package dhcp
