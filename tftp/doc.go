// Package tftp is rackboot's read-only TFTP server.
//
// It serves read requests from an fs.FS (RootFS of the configured
// directory, e.g. /usr/lib/ipxe) so that PXE firmware can fetch iPXE.
// Every request is checked before a byte is read from disk:
//
//   - The file name is cleaned by CleanPath: a leading "/" is stripped (the
//     root is "/" to clients, as with dnsmasq and tftpd-hpa --secure, so
//     "/undionly.kpxe" is "undionly.kpxe" and "/etc/passwd" is looked up as
//     "etc/passwd" inside the root); "\" is read as "/"; any ".." element,
//     NUL and other control bytes, invalid UTF-8 and names over 255 bytes
//     are refused.
//   - The name must be a regular file of the fs.FS. With RootFS, a symlink
//     that leads out of the root is refused.
//   - Refusals get an ERROR packet, sent from a fresh port like a transfer:
//     code 1 (file not found) for a missing file or a directory, code 2
//     (access violation) for writes, ".." and unreadable or escaping files,
//     code 4 (illegal operation) for a malformed request or a mode other
//     than octet/netascii, code 0 when Config.MaxTransfers is reached.
//     Stray DATA/ACK/ERROR packets on the server port are counted and
//     dropped, never answered.
//
// Transfers run on github.com/pin/tftp/v3, which implements blksize
// (RFC 2348) and tsize (RFC 2349). pin/tftp v3.2.0 does not implement the
// windowsize option (RFC 7440): its sender drops every option but blksize
// and tsize from the OACK, and its "anticipate" mode is an unnegotiated
// burst that expects an ACK per block. Requests that ask for a windowsize
// above 1 (EDK2/OVMF asks blksize 1468, windowsize 4) are therefore served
// by this package's own small RFC 7440 sender (window.go); everything else
// (iPXE asks blksize 1432 only) goes to pin/tftp. The timeout option is not
// acknowledged: every transfer uses Config.Timeout.
//
// pin/tftp reads requests through a wrapper of the server socket (gate.go),
// so it cannot see the address a request was sent to, and its transfer
// sockets bind the wildcard address: their replies come from whichever
// address the kernel routes from. A server reached on a secondary address
// of an interface answers lock-step transfers from the primary one.
// Windowed transfers bind the server socket's address when it is specific.
package tftp
