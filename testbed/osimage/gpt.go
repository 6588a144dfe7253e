package osimage

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"unicode/utf16"
)

// Partition is one entry of a GPT.
type Partition struct {
	Number   int    // 1-based index in the entry array
	Name     string // GPT partition name
	Type     string // type GUID, e.g. C12A7328-F81F-11D2-BA4B-00A0C93EC93B for an ESP
	GUID     string // unique partition GUID
	FirstLBA uint64
	LastLBA  uint64
}

// Offset is where the partition starts, in bytes.
func (p Partition) Offset() int64 { return int64(p.FirstLBA) * sector }

// Size is the partition's length in bytes.
func (p Partition) Size() int64 { return int64(p.LastLBA-p.FirstLBA+1) * sector }

// ESPType is the type GUID of an EFI system partition.
const ESPType = "C12A7328-F81F-11D2-BA4B-00A0C93EC93B"

// Limits on what ReadGPT accepts.
const (
	maxEntries   = 1024
	maxEntrySize = 4096
)

// ReadGPT reads the primary GPT of a disk of 512-byte sectors and returns
// its used partitions in entry order. Both CRCs are checked.
func ReadGPT(r io.ReaderAt) ([]Partition, error) {
	hdr := make([]byte, sector)
	if _, err := r.ReadAt(hdr, sector); err != nil {
		return nil, fmt.Errorf("%w: reading the header: %w", ErrGPT, err)
	}
	if string(hdr[:8]) != "EFI PART" {
		return nil, fmt.Errorf("%w: no EFI PART signature at LBA 1", ErrGPT)
	}
	le := binary.LittleEndian
	size := le.Uint32(hdr[12:])
	if size < 92 || size > sector {
		return nil, fmt.Errorf("%w: header size %d", ErrGPT, size)
	}
	want := le.Uint32(hdr[16:])
	h := append([]byte(nil), hdr[:size]...)
	clear(h[16:20])
	if crc32.ChecksumIEEE(h) != want {
		return nil, fmt.Errorf("%w: header CRC mismatch", ErrGPT)
	}
	lba, n, esize := le.Uint64(hdr[72:]), le.Uint32(hdr[80:]), le.Uint32(hdr[84:])
	if n == 0 || n > maxEntries || esize < 128 || esize > maxEntrySize || esize%8 != 0 || lba < 2 || lba > 1<<40 {
		return nil, fmt.Errorf("%w: entry array at LBA %d: %d entries of %d bytes", ErrGPT, lba, n, esize)
	}
	ents := make([]byte, int(n)*int(esize))
	if _, err := r.ReadAt(ents, int64(lba)*sector); err != nil {
		return nil, fmt.Errorf("%w: reading the entries: %w", ErrGPT, err)
	}
	if crc32.ChecksumIEEE(ents) != le.Uint32(hdr[88:]) {
		return nil, fmt.Errorf("%w: entry array CRC mismatch", ErrGPT)
	}
	var parts []Partition
	for i := 0; i < int(n); i++ {
		e := ents[i*int(esize) : (i+1)*int(esize)]
		if bytes.Equal(e[:16], make([]byte, 16)) {
			continue
		}
		p := Partition{Number: i + 1, Type: guidString(e[0:16]), GUID: guidString(e[16:32]),
			FirstLBA: le.Uint64(e[32:]), LastLBA: le.Uint64(e[40:]), Name: utf16Name(e[56:128])}
		if p.LastLBA < p.FirstLBA {
			return nil, fmt.Errorf("%w: partition %d ends before it starts", ErrGPT, p.Number)
		}
		parts = append(parts, p)
	}
	return parts, nil
}

// guidString formats a GUID stored in GPT's mixed-endian layout.
func guidString(b []byte) string {
	le := binary.LittleEndian
	return fmt.Sprintf("%08X-%04X-%04X-%X-%X", le.Uint32(b[0:]), le.Uint16(b[4:]), le.Uint16(b[6:]), b[8:10], b[10:16])
}

func utf16Name(b []byte) string {
	u := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		c := binary.LittleEndian.Uint16(b[i:])
		if c == 0 {
			break
		}
		u = append(u, c)
	}
	return string(utf16.Decode(u))
}

// FindPartition returns the partition named name.
func FindPartition(parts []Partition, name string) (Partition, error) {
	for _, p := range parts {
		if p.Name == name {
			return p, nil
		}
	}
	return Partition{}, fmt.Errorf("%w: %q", ErrPartition, name)
}
