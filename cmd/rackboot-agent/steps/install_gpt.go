package steps

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"unicode/utf16"
)

// GPT layout constants (UEFI 2.10 §5.3), for 512-byte logical blocks.
const (
	SectorSize       = 512
	gptHeaderLBA     = 1
	gptMinHeaderSize = 92
	gptMaxEntries    = 1024 // sgdisk writes 128; more is refused
	gptMaxEntrySize  = 1024
	gptNameOffset    = 56
	// GPTReservedSectors is how many sectors each end of a disk holds for
	// the GPT: the protective MBR, the header and a 128-entry table at the
	// start (34), the table and the backup header at the end (33).
	GPTReservedSectors = 34
)

var gptSignature = []byte("EFI PART")

// Partition is one used entry of a GPT partition table.
type Partition struct {
	Index    int // 1-based, as sgdisk and the kernel number them
	Name     string
	TypeGUID [16]byte
	FirstLBA uint64
	LastLBA  uint64 // inclusive
}

// Offset is the partition's first byte on the disk.
func (p Partition) Offset() int64 { return int64(p.FirstLBA) * SectorSize }

// Size is the partition's length in bytes.
func (p Partition) Size() int64 { return int64(p.LastLBA-p.FirstLBA+1) * SectorSize }

// ReadGPT reads the primary GPT of a disk of size bytes from r: the header
// at LBA 1 (signature "EFI PART", header CRC32, its own LBA), then the
// partition entry array (its CRC32). It returns the used entries, each
// checked to lie within the disk. Everything read is bounded: the table is
// at most gptMaxEntries entries of at most gptMaxEntrySize bytes.
func ReadGPT(r io.ReaderAt, size int64) ([]Partition, error) {
	sectors := size / SectorSize
	if sectors < GPTReservedSectors {
		return nil, fmt.Errorf("%w: gpt: disk of %d bytes is too small for a partition table", ErrParse, size)
	}
	hdr := make([]byte, SectorSize)
	if _, err := r.ReadAt(hdr, gptHeaderLBA*SectorSize); err != nil {
		return nil, fmt.Errorf("steps: gpt: read header: %w", err)
	}
	h, err := parseGPTHeader(hdr, uint64(sectors))
	if err != nil {
		return nil, err
	}
	table := make([]byte, int(h.entries)*int(h.entrySize))
	if _, err := r.ReadAt(table, int64(h.tableLBA)*SectorSize); err != nil {
		return nil, fmt.Errorf("steps: gpt: read partition table: %w", err)
	}
	if crc32.ChecksumIEEE(table) != h.tableCRC {
		return nil, fmt.Errorf("%w: gpt: partition table CRC32 mismatch", ErrParse)
	}
	return parseGPTEntries(table, int(h.entrySize), uint64(sectors))
}

type gptHeader struct {
	tableLBA           uint64
	entries, entrySize uint32
	tableCRC           uint32
}

func parseGPTHeader(b []byte, sectors uint64) (gptHeader, error) {
	le := binary.LittleEndian
	var h gptHeader
	if !bytes.Equal(b[:8], gptSignature) {
		return h, fmt.Errorf("%w: gpt: no \"EFI PART\" signature at LBA 1", ErrParse)
	}
	size := le.Uint32(b[12:])
	if size < gptMinHeaderSize || size > SectorSize {
		return h, fmt.Errorf("%w: gpt: header size %d outside %d..%d", ErrParse, size, gptMinHeaderSize, SectorSize)
	}
	want := le.Uint32(b[16:])
	c := append([]byte(nil), b[:size]...)
	clear(c[16:20])
	if crc32.ChecksumIEEE(c) != want {
		return h, fmt.Errorf("%w: gpt: header CRC32 mismatch", ErrParse)
	}
	if my := le.Uint64(b[24:]); my != gptHeaderLBA {
		return h, fmt.Errorf("%w: gpt: primary header says it is at LBA %d", ErrParse, my)
	}
	h.tableLBA, h.entries, h.entrySize, h.tableCRC = le.Uint64(b[72:]), le.Uint32(b[80:]), le.Uint32(b[84:]), le.Uint32(b[88:])
	if h.entries == 0 || h.entries > gptMaxEntries {
		return h, fmt.Errorf("%w: gpt: %d partition entries, want 1..%d", ErrParse, h.entries, gptMaxEntries)
	}
	if h.entrySize < 128 || h.entrySize > gptMaxEntrySize || h.entrySize%8 != 0 {
		return h, fmt.Errorf("%w: gpt: partition entry size %d", ErrParse, h.entrySize)
	}
	tableSectors := (uint64(h.entries)*uint64(h.entrySize) + SectorSize - 1) / SectorSize
	if h.tableLBA < 2 || h.tableLBA >= sectors || tableSectors > sectors-h.tableLBA {
		return h, fmt.Errorf("%w: gpt: partition table at LBA %d does not fit the disk", ErrParse, h.tableLBA)
	}
	return h, nil
}

func parseGPTEntries(table []byte, entrySize int, sectors uint64) ([]Partition, error) {
	le := binary.LittleEndian
	var parts []Partition
	for i := 0; i+entrySize <= len(table); i += entrySize {
		e := table[i : i+entrySize]
		var p Partition
		copy(p.TypeGUID[:], e[:16])
		if p.TypeGUID == ([16]byte{}) {
			continue // unused entry
		}
		p.Index = i/entrySize + 1
		p.FirstLBA, p.LastLBA = le.Uint64(e[32:]), le.Uint64(e[40:])
		if p.FirstLBA < 2 || p.FirstLBA > p.LastLBA || p.LastLBA >= sectors {
			return nil, fmt.Errorf("%w: gpt: partition %d spans LBA %d..%d outside the disk's %d sectors",
				ErrParse, p.Index, p.FirstLBA, p.LastLBA, sectors)
		}
		p.Name = gptName(e[gptNameOffset:128])
		parts = append(parts, p)
	}
	return parts, nil
}

// gptName decodes a UTF-16LE name up to its first NUL.
func gptName(b []byte) string {
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

// FindPartition returns the one partition called name.
func FindPartition(parts []Partition, name string) (Partition, error) {
	var found []Partition
	for _, p := range parts {
		if p.Name == name {
			found = append(found, p)
		}
	}
	switch len(found) {
	case 0:
		return Partition{}, fmt.Errorf("%w: the disk image has no GPT partition named %q", ErrNoPartition, name)
	case 1:
		return found[0], nil
	}
	return Partition{}, fmt.Errorf("%w: the disk image has %d GPT partitions named %q", ErrNoPartition, len(found), name)
}
