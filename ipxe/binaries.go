package ipxe

import (
	"errors"
	"fmt"
)

// ErrNoBinary is returned for a client architecture rackboot has no iPXE
// build for.
var ErrNoBinary = errors.New("no iPXE binary for this client architecture")

// Arch is a client system architecture, DHCP option 93 (RFC 4578 and IANA's
// processor architecture registry).
type Arch uint16

// The architectures rackboot knows about.
const (
	ArchBIOS         Arch = 0  // x86 BIOS
	ArchEFIIA32      Arch = 6  // 32-bit x86 UEFI
	ArchEFIBC        Arch = 7  // x86-64 UEFI (EFI BC)
	ArchEFIx64       Arch = 9  // x86-64 UEFI
	ArchEFIARM32     Arch = 10 // 32-bit ARM UEFI
	ArchEFIARM64     Arch = 11 // ARM64 UEFI
	ArchEFIx64HTTP   Arch = 16 // x86-64 UEFI HTTP boot
	ArchEFIARM64HTTP Arch = 19 // ARM64 UEFI HTTP boot
)

// Binary is the iPXE build a firmware is handed.
type Binary struct {
	File string // file name in the TFTP root and under /ipxe/ over HTTP
	HTTP bool   // the firmware fetches it over HTTP (UEFI HTTP boot), not TFTP
}

// BinaryFor returns the iPXE build for a client architecture: BIOS gets
// undionly.kpxe, x86-64 UEFI ipxe.efi, ARM64 UEFI snp.efi, and the HTTP-boot
// variants the same files over HTTP.
func BinaryFor(a Arch) (Binary, error) {
	switch a {
	case ArchBIOS:
		return Binary{File: "undionly.kpxe"}, nil
	case ArchEFIBC, ArchEFIx64:
		return Binary{File: "ipxe.efi"}, nil
	case ArchEFIARM64:
		return Binary{File: "snp.efi"}, nil
	case ArchEFIx64HTTP:
		return Binary{File: "ipxe.efi", HTTP: true}, nil
	case ArchEFIARM64HTTP:
		return Binary{File: "snp.efi", HTTP: true}, nil
	}
	return Binary{}, fmt.Errorf("%w: architecture %d", ErrNoBinary, uint16(a))
}

// URL is where an HTTP-boot firmware fetches the binary: <base>/ipxe/<file>.
func (b Binary) URL(baseURL string) string {
	return baseURL + "/ipxe/" + b.File
}
