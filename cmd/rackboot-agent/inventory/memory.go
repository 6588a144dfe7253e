package inventory

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/rackboot/rackboot/engine/models"
)

// ParseMemInfo parses /proc/meminfo into bytes per key ("kB" values are
// multiplied by 1024; values without a unit are counts and kept as is).
func ParseMemInfo(b []byte) (map[string]int64, error) {
	out := map[string]int64{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("%w: meminfo line %d has no colon", ErrParse, n)
		}
		f := strings.Fields(val)
		if len(f) == 0 || len(f) > 2 || (len(f) == 2 && f[1] != "kB") {
			return nil, fmt.Errorf("%w: meminfo line %d: %.60q", ErrParse, n, line)
		}
		v, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("%w: meminfo line %d: %.60q", ErrParse, n, line)
		}
		if len(f) == 2 {
			if v > 1<<53 {
				return nil, fmt.Errorf("%w: meminfo line %d: value too large", ErrParse, n)
			}
			v *= 1024
		}
		out[strings.TrimSpace(key)] = v
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: meminfo: %w", ErrParse, err)
	}
	return out, nil
}

// ParseSMBIOSMemory sums the sizes of the installed memory devices (SMBIOS
// structure type 17) in a raw SMBIOS table, as found in
// /sys/firmware/dmi/tables/DMI; this is what `dmidecode -t 17` reads.
func ParseSMBIOSMemory(b []byte) (int64, error) {
	var total int64
	off := 0
	for off < len(b) {
		if off+4 > len(b) {
			return 0, fmt.Errorf("%w: SMBIOS table truncated at %d", ErrParse, off)
		}
		typ, length := b[off], int(b[off+1])
		if length < 4 || off+length > len(b) {
			return 0, fmt.Errorf("%w: SMBIOS structure at %d has length %d", ErrParse, off, length)
		}
		if typ == 127 {
			break
		}
		if typ == 17 && length >= 0x10 {
			total += smbiosDeviceSize(b[off : off+length])
		}
		end := bytes.Index(b[off+length:], []byte{0, 0})
		if end < 0 {
			return 0, fmt.Errorf("%w: SMBIOS structure at %d has no string terminator", ErrParse, off)
		}
		off += length + end + 2
	}
	return total, nil
}

// smbiosDeviceSize decodes the Size (and Extended Size) of a type 17 body.
func smbiosDeviceSize(s []byte) int64 {
	size := binary.LittleEndian.Uint16(s[0x0C:])
	switch {
	case size == 0 || size == 0xFFFF: // empty slot or unknown
		return 0
	case size == 0x7FFF && len(s) >= 0x20:
		return int64(binary.LittleEndian.Uint32(s[0x1C:])&0x7FFFFFFF) << 20
	case size&0x8000 != 0:
		return int64(size&0x7FFF) << 10
	default:
		return int64(size) << 20
	}
}

// Memory reads MemTotal from /proc/meminfo as usable bytes. Physical bytes
// come, like upstream, from the first source that knows: the SMBIOS memory
// devices ("dmidecode"), the online memory blocks in
// /sys/devices/system/memory ("ghw"), or MemTotal ("meminfo").
func (c *Collector) Memory() (*models.Memory, error) {
	b, err := fs.ReadFile(c.fsys(), "proc/meminfo")
	if err != nil {
		return nil, err
	}
	mi, err := ParseMemInfo(b)
	if err != nil {
		return nil, err
	}
	usable, ok := mi["MemTotal"]
	if !ok {
		return nil, fmt.Errorf("%w: meminfo has no MemTotal", ErrParse)
	}
	m := &models.Memory{UsableBytes: usable}
	if raw, err := fs.ReadFile(c.fsys(), "sys/firmware/dmi/tables/DMI"); err == nil {
		if n, err := ParseSMBIOSMemory(raw); err == nil && n > 0 {
			m.PhysicalBytes, m.PhysicalBytesMethod = n, models.MemoryMethodDmidecode
			return m, nil
		}
	}
	if n, err := c.memoryBlockBytes(); err == nil && n > 0 {
		m.PhysicalBytes, m.PhysicalBytesMethod = n, models.MemoryMethodGhw
		return m, nil
	}
	m.PhysicalBytes, m.PhysicalBytesMethod = usable, models.MemoryMethodMeminfo
	return m, nil
}

// memoryBlockBytes is block_size_bytes times the number of online blocks.
func (c *Collector) memoryBlockBytes() (int64, error) {
	s, err := readString(c.fsys(), "sys/devices/system/memory/block_size_bytes")
	if err != nil {
		return 0, err
	}
	size, err := strconv.ParseInt(s, 16, 64)
	if err != nil || size <= 0 {
		return 0, errors.Join(ErrParse, err)
	}
	names, _ := fs.Glob(c.fsys(), "sys/devices/system/memory/memory*/state")
	var n int64
	for _, name := range names {
		if readOptional(c.fsys(), name) == "online" {
			n++
		}
	}
	return n * size, nil
}
