// Package vendorbmc is a Redfish BMC that looks and behaves like a given
// vendor's: Dell iDRAC 9, HPE iLO 5, Supermicro X12, Lenovo XCC, an AMI
// MegaRAC and DMTF's public-rackmount1 mockup. It serves a DMTF-style
// mockup directory (mockups/<vendor>/…/index.json, embedded), acts on PATCH
// and on the Reset, InsertMedia, EjectMedia and Dell
// ImportSystemConfiguration actions, records every request, and plays the
// vendor's personality (personality.go):
//
//   - iDRAC: the slot shows an inserted image only a few reads after the
//     InsertMedia answered 204; a PATCH of a VirtualMedia slot is refused;
//     the virtual CD is booted once through the OEM ServerBoot.1#BootOnce /
//     FirstBootDevice VCD-DVD attributes (ImportSystemConfiguration) or the
//     standard override.
//   - iLO 5: links end in a slash; no GracefulShutdown (PushPowerButton
//     instead); EjectMedia needs a JSON body; the virtual media is booted
//     only when Oem.Hpe.BootOnNextServerReset was set with InsertMedia.
//   - Supermicro X12: the manager's VirtualMedia collection lists no slots
//     (CD1 is there all the same); InsertMedia refuses Inserted and
//     WriteProtected; the firmware is UEFI-only, so only the Uefi* targets
//     (UefiPxe, UefiCd, UefiHttp) boot a network or CD, the legacy Pxe/Cd
//     fall through to the disk.
//   - Lenovo XCC: no InsertMedia action (the slot is PATCHed) and the PATCH
//     shows in the slot a few reads later.
//
// Front puts the iDRAC, iLO, Supermicro or XCC personality in front of the
// testbed's QEMU Redfish emulator instead of a mockup (front.go,
// front_media.go), so make e2e-bmc drives a real VM as each vendor's
// machine; Fronted.Taken lists the vendor paths the client took.
//
// Boots records what the machine booted at each power-on or restart
// ("cd <image>", "pxe", "http", "disk"), so a test can assert what the
// user would see: the machine came up from the discovery ISO.
//
// The mockups are written by hand after the resource paths, IDs and
// allowable values those BMCs publish (mockups/README.md); the behaviour is
// the one Ironic, sushy and sushy-oem-idrac are written for.
package vendorbmc
