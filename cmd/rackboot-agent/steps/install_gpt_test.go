package steps

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
)

// testPart is a partition makeGPT writes.
type testPart struct {
	name        string
	first, last uint64
}

// makeGPT returns a disk of sectors 512-byte sectors with a protective
// MBR, primary and backup GPT headers and 128-entry tables holding parts.
func makeGPT(sectors uint64, parts []testPart) []byte {
	le := binary.LittleEndian
	img := make([]byte, sectors*SectorSize)
	mbr := img[446:462]
	mbr[4] = 0xee
	le.PutUint32(mbr[8:], 1)
	le.PutUint32(mbr[12:], uint32(min(sectors-1, 0xffffffff)))
	img[510], img[511] = 0x55, 0xaa
	table := make([]byte, 128*128)
	linuxFS := []byte{0xaf, 0x3d, 0xc6, 0x0f, 0x83, 0x84, 0x72, 0x47, 0x8e, 0x79, 0x3d, 0x69, 0xd8, 0x47, 0x7d, 0xe4}
	for i, p := range parts {
		e := table[i*128:]
		copy(e, linuxFS)
		e[16], e[31] = byte(i+1), 0x42 // a unique GUID
		le.PutUint64(e[32:], p.first)
		le.PutUint64(e[40:], p.last)
		for j, u := range utf16.Encode([]rune(p.name)) {
			le.PutUint16(e[56+2*j:], u)
		}
	}
	tableCRC := crc32.ChecksumIEEE(table)
	header := func(my, alt, tableLBA uint64) []byte {
		h := make([]byte, 92)
		copy(h, "EFI PART")
		le.PutUint32(h[8:], 0x00010000)
		le.PutUint32(h[12:], 92)
		le.PutUint64(h[24:], my)
		le.PutUint64(h[32:], alt)
		le.PutUint64(h[40:], 34)
		le.PutUint64(h[48:], sectors-34)
		copy(h[56:72], "rackboot-testdsk")
		le.PutUint64(h[72:], tableLBA)
		le.PutUint32(h[80:], 128)
		le.PutUint32(h[84:], 128)
		le.PutUint32(h[88:], tableCRC)
		le.PutUint32(h[16:], crc32.ChecksumIEEE(h))
		return h
	}
	copy(img[1*SectorSize:], header(1, sectors-1, 2))
	copy(img[2*SectorSize:], table)
	copy(img[(sectors-33)*SectorSize:], table)
	copy(img[(sectors-1)*SectorSize:], header(sectors-1, 1, sectors-33))
	return img
}

func TestReadGPT(t *testing.T) {
	img := makeGPT(4096, []testPart{{"ignition", 2048, 2055}, {"root-é", 2056, 4000}})
	parts, err := ReadGPT(bytes.NewReader(img), int64(len(img)))
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 2 || parts[0].Name != "ignition" || parts[0].Offset() != 2048*512 || parts[0].Size() != 8*512 ||
		parts[1].Name != "root-é" || parts[1].Index != 2 || parts[1].LastLBA != 4000 {
		t.Fatalf("%+v", parts)
	}
	if p, err := FindPartition(parts, "ignition"); err != nil || p.Index != 1 {
		t.Fatalf("FindPartition: %+v %v", p, err)
	}
	if _, err := FindPartition(parts, "boot"); !errors.Is(err, ErrNoPartition) {
		t.Fatalf("missing partition: %v", err)
	}
	dup := makeGPT(4096, []testPart{{"ignition", 2048, 2055}, {"ignition", 2056, 4000}})
	parts, _ = ReadGPT(bytes.NewReader(dup), int64(len(dup)))
	if _, err := FindPartition(parts, "ignition"); err == nil || !strings.Contains(err.Error(), "2 GPT partitions") {
		t.Fatalf("duplicate name: %v", err)
	}
}

func TestReadGPTRefusesCorruption(t *testing.T) {
	good := makeGPT(4096, []testPart{{"ignition", 2048, 2055}})
	for name, tc := range map[string]struct {
		corrupt func(b []byte)
		want    string
	}{
		"signature":  {func(b []byte) { b[512] = 'X' }, "signature"},
		"header crc": {func(b []byte) { b[512+40]++ }, "header CRC32"},
		"table crc":  {func(b []byte) { b[1024+60]++ }, "table CRC32"},
		"no gpt":     {func(b []byte) { clear(b[512:1024]) }, "signature"},
		"beyond the disk": {func(b []byte) {
			binary.LittleEndian.PutUint64(b[1024+40:], 5000)
			fixCRCs(b)
		}, "outside the disk"},
		"huge table": {func(b []byte) {
			binary.LittleEndian.PutUint32(b[512+80:], 1<<30)
			fixCRCs(b)
		}, "partition entries"},
	} {
		b := bytes.Clone(good)
		tc.corrupt(b)
		_, err := ReadGPT(bytes.NewReader(b), int64(len(b)))
		if !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
}

// fixCRCs recomputes the primary header's table and header CRC32s.
func fixCRCs(b []byte) {
	le := binary.LittleEndian
	h := b[512:604]
	if n := le.Uint32(h[80:]); n <= 128 {
		le.PutUint32(h[88:], crc32.ChecksumIEEE(b[1024:1024+n*128]))
	}
	clear(h[16:20])
	le.PutUint32(h[16:], crc32.ChecksumIEEE(h))
}

// TestReadGPTAgreesWithSgdisk checks the parser against sgdisk's tables and
// the test writer against sgdisk's verifier.
func TestReadGPTAgreesWithSgdisk(t *testing.T) {
	sgdisk, err := exec.LookPath("sgdisk")
	if err != nil {
		t.Skip("sgdisk (gdisk) is not installed")
	}
	path := filepath.Join(t.TempDir(), "disk.img")
	if err := os.WriteFile(path, make([]byte, 16<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(sgdisk, "-n1:2048:+1M", "-c1:EFI system", "-t1:ef00", "-n2:0:+64K", "-c2:ignition",
		"-n3:0:0", "-c3:root", path).CombinedOutput()
	if err != nil {
		t.Fatalf("sgdisk: %v\n%s", err, out)
	}
	img, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	parts, err := ReadGPT(bytes.NewReader(img), int64(len(img)))
	if err != nil {
		t.Fatal(err)
	}
	p, err := FindPartition(parts, "ignition")
	if len(parts) != 3 || err != nil || p.Index != 2 || p.FirstLBA != 4096 || p.Size() != 64<<10 || parts[0].Name != "EFI system" {
		t.Fatalf("%+v %v", parts, err)
	}
	mine := filepath.Join(t.TempDir(), "mine.img")
	if err := os.WriteFile(mine, makeGPT(8192, []testPart{{"ignition", 2048, 2055}, {"root", 2056, 8000}}), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err = exec.Command(sgdisk, "-v", mine).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "No problems found") {
		t.Fatalf("sgdisk -v on the test writer's disk: %v\n%s", err, out)
	}
}

// FuzzReadGPT: the GPT parsed is that of a disk image that came over the
// network. It must never panic, allocate without bound, or return a
// partition outside the disk. With fix set the CRC32s are made right
// first, so that the fuzzer gets past them to the structure behind.
func FuzzReadGPT(f *testing.F) {
	f.Add(makeGPT(36, []testPart{{"ignition", 34, 34}, {"root", 35, 35}}), false)
	f.Add(makeGPT(40, []testPart{{"ignition", 34, 36}, {"root", 37, 30}}), true)
	f.Add(make([]byte, 34*512), true)
	f.Fuzz(func(t *testing.T, data []byte, fix bool) {
		if fix && len(data) >= GPTReservedSectors*SectorSize {
			fixFuzzCRCs(data)
		}
		parts, err := ReadGPT(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		for _, p := range parts {
			if p.Offset() < 2*SectorSize || p.Size() <= 0 || p.Offset()+p.Size() > int64(len(data)) {
				t.Fatalf("partition %+v outside a %d-byte disk", p, len(data))
			}
		}
	})
}

// fixFuzzCRCs sets the primary header's CRC32s to match whatever data
// holds, where the header's fields leave that possible.
func fixFuzzCRCs(data []byte) {
	le := binary.LittleEndian
	h := data[SectorSize : 2*SectorSize]
	size := le.Uint32(h[12:])
	if size < gptMinHeaderSize || size > SectorSize {
		return
	}
	lba, n, es := le.Uint64(h[72:]), uint64(le.Uint32(h[80:])), uint64(le.Uint32(h[84:]))
	if lba < uint64(len(data))/SectorSize && n <= gptMaxEntries && es <= gptMaxEntrySize && lba*SectorSize+n*es <= uint64(len(data)) {
		le.PutUint32(h[88:], crc32.ChecksumIEEE(data[lba*SectorSize:lba*SectorSize+n*es]))
	}
	clear(h[16:20])
	le.PutUint32(h[16:], crc32.ChecksumIEEE(h[:size]))
}
