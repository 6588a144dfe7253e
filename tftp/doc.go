// Package tftp is rackboot's read-only TFTP server.
//
// It serves read requests from an fs.FS (normally RootFS of the configured
// directory, e.g. /usr/lib/ipxe) so that PXE firmware can fetch iPXE.
// Write requests are refused. Every request is checked before a byte is
// read from disk: the file name is cleaned by CleanPath (a leading "/" is
// stripped, as dnsmasq and tftpd-hpa --secure do, so "/undionly.kpxe" is
// "undionly.kpxe" in the root; "\" is read as "/"; ".." and control bytes
// are refused), and a refused request gets a TFTP ERROR packet, never data.
//
// Transfers run on github.com/pin/tftp/v3, which implements blksize
// (RFC 2348) and tsize (RFC 2349). pin/tftp v3.2.0 does not implement the
// windowsize option (RFC 7440): its sender drops every option but blksize
// and tsize from the OACK, and its "anticipate" mode is an unnegotiated
// burst that expects an ACK per block. Requests that ask for a windowsize
// above 1 (EDK2/OVMF asks for 4) are therefore served by this package's own
// small RFC 7440 sender (window.go); everything else goes to pin/tftp.
// The timeout option (RFC 2349) is not acknowledged: the server uses
// Config.Timeout for every transfer.
package tftp
