// Package ipxe renders the iPXE scripts rackboot hands to booting machines and
// knows which iPXE binary each firmware gets. Every value that reaches a
// script or a kernel command line passes the checks in this package first, so
// a hostname or argument cannot inject iPXE commands.
package ipxe
