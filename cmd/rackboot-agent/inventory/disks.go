package inventory

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/rackboot/rackboot/engine/models"
)

// Disks lists the block devices in /sys/block, leaving out loop, ram and
// zram devices, hidden devices, and device-mapper devices other than
// multipath and LVM (upstream's rule), and also fixed devices of size 0
// (unattached nbd, inactive md), which upstream would list. A disk whose
// size cannot be read is left out and named in the error; the others are
// still returned. Attributes come from sysfs, the
// udev database when present, and /dev/disk/by-* links when present.
func (c *Collector) Disks() ([]*models.Disk, error) {
	fsys := c.fsys()
	ents, err := fs.ReadDir(fsys, "sys/block")
	if err != nil {
		return nil, err
	}
	byID := diskLinks(fsys, "dev/disk/by-id", idRank)
	byPath := diskLinks(fsys, "dev/disk/by-path", pathRank)
	mounts := readMounts(fsys)
	out := []*models.Disk{}
	var errs []error
	for _, e := range ents {
		name := e.Name()
		if c.skipDisk(name) {
			continue
		}
		d, err := c.disk(name, byID[name], byPath[name], mounts)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if d.SizeBytes == 0 && !d.Removable { // unattached nbd, empty md, ...
			continue
		}
		out = append(out, d)
	}
	return out, errors.Join(errs...)
}

func (c *Collector) skipDisk(name string) bool {
	for _, p := range []string{"loop", "ram", "zram"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	if readOptional(c.fsys(), "sys/block/"+name+"/hidden") == "1" {
		return true
	}
	return strings.HasPrefix(name, "dm-") && c.dmKind(name) == ""
}

// dmKind is Multipath or LVM for those device-mapper devices, else "".
func (c *Collector) dmKind(name string) models.DriveType {
	uuid := readOptional(c.fsys(), "sys/block/"+name+"/dm/uuid")
	switch {
	case strings.HasPrefix(uuid, "mpath-"):
		return models.DriveTypeMultipath
	case strings.HasPrefix(uuid, "LVM-"):
		return models.DriveTypeLVM
	}
	return ""
}

func (c *Collector) disk(name, byID, byPath string, mounts map[string]string) (*models.Disk, error) {
	fsys, dir := c.fsys(), "sys/block/"+name+"/"
	sectors, err := readInt(fsys, dir+"size")
	if err != nil {
		return nil, fmt.Errorf("disk %s: %w", name, err)
	}
	udev := c.udevProps(dir + "dev")
	d := &models.Disk{
		Name:      name,
		Path:      "/dev/" + name,
		ByID:      byID,
		ByPath:    byPath,
		SizeBytes: sectors * 512,
		Removable: readOptional(fsys, dir+"removable") == "1",
		Model:     first(udev["ID_MODEL"], readOptional(fsys, dir+"device/model")),
		Vendor:    first(udev["ID_VENDOR"], readOptional(fsys, dir+"device/vendor")),
		Serial: first(udev["ID_SERIAL_SHORT"], readOptional(fsys, dir+"device/serial"),
			readOptional(fsys, dir+"serial")),
		Wwn: first(udev["ID_WWN_WITH_EXTENSION"], udev["ID_WWN"], linkWWN(byID),
			wwid(first(readOptional(fsys, dir+"device/wwid"), readOptional(fsys, dir+"wwid")))),
		Hctl:      firstName(fsys, dir+"device/scsi_device"),
		Holders:   strings.Join(dirNames(fsys, dir+"holders"), ","),
		DriveType: c.driveType(name),
		Bootable:  c.bootable(name),
	}
	d.ID = first(d.ByID, d.ByPath, d.Path)
	reasons, media := c.eligibility(name, mounts)
	d.InstallationEligibility = models.DiskInstallationEligibility{Eligible: len(reasons) == 0, NotEligibleReasons: reasons}
	d.IsInstallationMedia = media || d.DriveType == models.DriveTypeODD
	return d, nil
}

// linkWWN is the WWN named by a /dev/disk/by-id/wwn-* link, else "".
func linkWWN(byID string) string {
	w, _ := strings.CutPrefix(path.Base(byID), "wwn-")
	if w == path.Base(byID) {
		return ""
	}
	return w
}

// wwid turns a SCSI "naa.<hex>" wwid into udev's "0x<hex>" form.
func wwid(s string) string {
	if h, ok := strings.CutPrefix(s, "naa."); ok {
		return "0x" + h
	}
	return s
}

// controllers maps kernel name prefixes to whether ghw knows the storage
// controller and the drive type it starts from.
var controllers = []struct {
	prefix string
	typ    models.DriveType
}{
	{"nvme", models.DriveTypeSSD}, {"mmc", models.DriveTypeSSD}, {"xvd", models.DriveTypeHDD},
	{"hd", models.DriveTypeHDD}, {"sd", models.DriveTypeHDD}, {"vd", models.DriveTypeHDD},
	{"sr", models.DriveTypeODD},
}

// controllerType is the drive type implied by the name, "" if unknown.
func controllerType(name string) models.DriveType {
	for _, ct := range controllers {
		if strings.HasPrefix(name, ct.prefix) {
			return ct.typ
		}
	}
	return ""
}

func (c *Collector) driveType(name string) models.DriveType {
	if k := c.dmKind(name); k != "" {
		return k
	}
	if strings.HasPrefix(name, "md") {
		return models.DriveTypeRAID
	}
	if strings.HasPrefix(name, "fd") {
		return models.DriveTypeFDD
	}
	t := controllerType(name)
	if t == models.DriveTypeHDD && readOptional(c.fsys(), "sys/block/"+name+"/queue/rotational") == "0" {
		return models.DriveTypeSSD
	}
	if t == "" {
		return models.DriveTypeUnknown
	}
	return t
}

// eligibility applies upstream's agent-side rules: an unknown storage
// controller, an LVM volume, a partition mounted somewhere, or a partition
// mounted at a path ending in "iso" (installation media) disqualify a disk.
func (c *Collector) eligibility(name string, mounts map[string]string) (reasons []string, media bool) {
	lvm := c.dmKind(name) == models.DriveTypeLVM
	if controllerType(name) == "" && c.dmKind(name) == "" && !strings.HasPrefix(name, "md") {
		reasons = append(reasons, "Disk has unknown storage controller")
	}
	if lvm {
		reasons = append(reasons, "Disk is an LVM logical volume")
	}
	// The whole disk counts too: an ISO is mounted without partitions.
	for _, part := range append([]string{name}, c.partitions(name)...) {
		mp, ok := mounts["/dev/"+part]
		switch {
		case !ok || media:
		case strings.HasSuffix(mp, "iso"):
			reasons = append(reasons, "Disk appears to be an ISO installation media (has partition with mountpoint suffix iso)")
			media = true
		default:
			reasons = append(reasons, fmt.Sprintf("Disk has partition '%s' mounted on '%s'", part, mp))
		}
	}
	return reasons, media
}

// partitions lists the partition directories of a disk in sysfs.
func (c *Collector) partitions(name string) []string {
	var parts []string
	for _, n := range dirNames(c.fsys(), "sys/block/"+name) {
		if _, err := fs.Stat(c.fsys(), "sys/block/"+name+"/"+n+"/partition"); err == nil {
			parts = append(parts, n)
		}
	}
	return parts
}

// bootable reports whether the first sector carries the 0x55AA boot
// signature (an MBR, or the protective MBR of a GPT disk); upstream asks
// `file -s` for "DOS/MBR boot sector", which tests the same bytes.
func (c *Collector) bootable(name string) bool {
	if strings.HasPrefix(name, "fd") { // reading a floppy can take seconds
		return false
	}
	f, err := c.fsys().Open("dev/" + name)
	if err != nil {
		return false
	}
	defer f.Close()
	var sector [512]byte
	if _, err := io.ReadFull(f, sector[:]); err != nil {
		return false
	}
	return sector[510] == 0x55 && sector[511] == 0xAA
}

// udevProps reads the udev database entry (E: lines) of the device whose
// "major:minor" is in devFile; empty without udev.
func (c *Collector) udevProps(devFile string) map[string]string {
	props := map[string]string{}
	dev := readOptional(c.fsys(), devFile)
	if dev == "" {
		return props
	}
	b, err := fs.ReadFile(c.fsys(), "run/udev/data/b"+dev)
	if err != nil {
		return props
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if kv, ok := strings.CutPrefix(sc.Text(), "E:"); ok {
			if k, v, ok := strings.Cut(kv, "="); ok {
				props[k] = v
			}
		}
	}
	return props
}

// diskLinks maps kernel device names to the best /dev/disk/by-* link
// pointing at them; rank orders candidates (lower first) and rejects
// names with a negative rank.
func diskLinks(fsys fs.FS, dir string, rank func(string) int) map[string]string {
	best := map[string]string{}
	names := dirNames(fsys, dir)
	sort.Slice(names, func(i, j int) bool {
		ri, rj := rank(names[i]), rank(names[j])
		if ri != rj {
			return ri < rj
		}
		if len(names[i]) != len(names[j]) {
			return len(names[i]) < len(names[j])
		}
		return names[i] < names[j]
	})
	for _, n := range names {
		if rank(n) < 0 {
			continue
		}
		target, err := fs.ReadLink(fsys, dir+"/"+n)
		if err != nil {
			continue
		}
		dev := path.Base(target)
		if _, taken := best[dev]; !taken {
			best[dev] = "/" + dir + "/" + n
		}
	}
	return best
}

// idRank keeps upstream's by-id choice: only World Wide Names (wwn-*),
// then NVMe EUIs.
func idRank(n string) int {
	switch {
	case strings.HasPrefix(n, "wwn-"):
		return 0
	case strings.HasPrefix(n, "nvme-eui"):
		return 1
	}
	return -1
}

// pathRank accepts every by-path link; the shortest wins.
func pathRank(string) int { return 0 }

// readMounts maps mounted devices to their mount points (/proc/mounts).
func readMounts(fsys fs.FS) map[string]string {
	m := map[string]string{}
	b, _ := fs.ReadFile(fsys, "proc/mounts")
	_ = eachLine(b, 0, func(_ int, f []string) error {
		if len(f) >= 2 && strings.HasPrefix(f[0], "/dev/") {
			if _, seen := m[f[0]]; !seen {
				m[f[0]] = unescapeMount(f[1])
			}
		}
		return nil
	})
	return m
}

// unescapeMount undoes the octal escapes (\040 for space) of /proc/mounts.
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func first(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// firstName is the first entry of a directory, "" if none.
func firstName(fsys fs.FS, dir string) string {
	if n := dirNames(fsys, dir); len(n) > 0 {
		return n[0]
	}
	return ""
}
