package leasefile

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"net"
	"net/netip"
	"time"

	"github.com/rackboot/rackboot/dhcp"
)

// header starts every lease log; the last byte is the format version.
const header = "RBLEASE\x01"

const (
	frameLen   = 8 // payload length, CRC-32C of the payload
	maxPayload = 2 + 4 + 8 + 1 + 16 + 1 + 255
	kindPut    = 1
	kindDelete = 2
)

var (
	crcTable = crc32.MakeTable(crc32.Castagnoli)

	errShort   = errors.New("record cut short")
	errCRC     = errors.New("record checksum mismatch")
	errPayload = errors.New("record payload invalid")
)

// op is one change to the lease set: put a lease, or delete the lease on
// lease.IP.
type op struct {
	lease dhcp.Lease
	del   bool
}

// appendRecord appends o as one framed record to b.
func appendRecord(b []byte, o op) []byte {
	start := len(b)
	b = append(b, make([]byte, frameLen)...)
	kind := byte(kindPut)
	if o.del {
		kind = kindDelete
	}
	ip := o.lease.IP.As4()
	b = append(b, 1, kind)
	b = append(b, ip[:]...)
	var exp int64
	if !o.lease.Expires.IsZero() {
		exp = o.lease.Expires.UnixNano()
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(exp))
	mac := o.lease.MAC
	if len(mac) > 16 {
		mac = mac[:16]
	}
	b = append(b, byte(len(mac)))
	b = append(b, mac...)
	host := o.lease.Hostname
	if len(host) > 255 {
		host = host[:255]
	}
	b = append(b, byte(len(host)))
	b = append(b, host...)
	payload := b[start+frameLen:]
	binary.LittleEndian.PutUint32(b[start:], uint32(len(payload)))
	binary.LittleEndian.PutUint32(b[start+4:], crc32.Checksum(payload, crcTable))
	return b
}

// decodeRecord reads the record at the start of b and returns it with its
// length in bytes.
func decodeRecord(b []byte) (op, int, error) {
	if len(b) < frameLen {
		return op{}, 0, errShort
	}
	n := int(binary.LittleEndian.Uint32(b))
	if n > maxPayload || n < 2+4+8+2 {
		return op{}, 0, errPayload
	}
	if len(b) < frameLen+n {
		return op{}, 0, errShort
	}
	payload := b[frameLen : frameLen+n]
	if crc32.Checksum(payload, crcTable) != binary.LittleEndian.Uint32(b[4:]) {
		return op{}, 0, errCRC
	}
	o, err := decodePayload(payload)
	return o, frameLen + n, err
}

func decodePayload(p []byte) (op, error) {
	if p[0] != 1 || (p[1] != kindPut && p[1] != kindDelete) {
		return op{}, errPayload
	}
	o := op{del: p[1] == kindDelete}
	o.lease.IP = netip.AddrFrom4([4]byte(p[2:6]))
	if exp := int64(binary.LittleEndian.Uint64(p[6:14])); exp != 0 {
		o.lease.Expires = time.Unix(0, exp)
	}
	rest := p[14:]
	ml := int(rest[0])
	if ml > 16 || len(rest) < 1+ml+1 {
		return op{}, errPayload
	}
	if ml > 0 {
		o.lease.MAC = net.HardwareAddr(append([]byte(nil), rest[1:1+ml]...))
	}
	rest = rest[1+ml:]
	hl := int(rest[0])
	if len(rest) != 1+hl {
		return op{}, errPayload
	}
	o.lease.Hostname = string(rest[1:])
	return o, nil
}

// decodeLog replays the records of a log body (header removed) and returns
// them with the length of the valid prefix and, when the body does not end
// there, why.
func decodeLog(b []byte) ([]op, int, error) {
	var ops []op
	off := 0
	for off < len(b) {
		o, n, err := decodeRecord(b[off:])
		if err != nil {
			return ops, off, err
		}
		ops = append(ops, o)
		off += n
	}
	return ops, off, nil
}
