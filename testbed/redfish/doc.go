// Package redfish is the testbed's BMC emulator: one Redfish service in
// front of the testbed's QEMU VMs, as sushy-tools is in front of libvirt.
//
// Each System is a Machine (a QEMU VM, see NewQEMU; a fake in unit tests).
// The service offers the ComputerSystem resource with PowerState, the Boot
// override (target Pxe, Cd, Hdd or None; enabled Once, Continuous or
// Disabled; the mode of the VM's firmware) and the Reset action (On,
// ForceOff, GracefulShutdown, ForceRestart, PowerCycle); its
// EthernetInterfaces with the VM's MAC; a Manager per System with a
// VirtualMedia CD slot (InsertMedia, EjectMedia, PATCH of Image/Inserted),
// the same slot also linked from the System as newer iDRACs do.
//
// The override takes effect at the next power-on, which starts QEMU with the
// matching boot order; a Once override is cleared by that power-on, and a
// ForceRestart with an override pending is a cold restart so that it
// applies. InsertMedia downloads the image (http only, size-bounded) into a
// file and hands it to QEMU through QMP when the VM runs, or at its next
// start.
//
// Everything but the service root and the login needs HTTP Basic
// authentication or a session token (SessionService, X-Auth-Token); Serve
// uses TLS with a self-signed certificate made at start (SelfSigned).
//
// Tests: unit tests run the handler with a fake machine; TestRackbootDriver
// drives it over TLS with rackboot's own bmc/redfish driver; TestRedfishtool
// and TestSushy with clients nobody here wrote (Debian's redfishtool and
// python3-sushy; skipped when missing); TestQEMUWithRackbootDriver
// (RACKBOOT_E2E=1, root) with one real UEFI QEMU VM in a network namespace,
// reading OVMF's boot attempts from its console and the CD drive from QMP.
package redfish
