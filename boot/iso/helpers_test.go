package iso

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const (
	testAreaSize  = 64 << 10
	testKargsSize = 256
	testDefault   = "console=ttyS0 quiet"
)

// kargsLine is a bootloader config with a kargs area after "APPEND ".
func kargsConfig(prefix string) (cfg []byte, offset int) {
	area := testDefault + "\n" + strings.Repeat("#", testKargsSize-len(testDefault)-1)
	head := "DEFAULT x\nLABEL x\n  KERNEL /images/vmlinuz\n  " + prefix
	return []byte(head + area + "\n  INITRD /images/initrd.img\n"), len(head)
}

// testTree is the content of a small live ISO.
func testTree(t *testing.T) map[string][]byte {
	t.Helper()
	cfg, off := kargsConfig("APPEND ")
	grub, goff := kargsConfig("linux /images/vmlinuz ")
	kargs := `{"default":"` + testDefault + `","size":` + strconv.Itoa(testKargsSize) + `,"files":[` +
		`{"path":"isolinux/isolinux.cfg","offset":` + strconv.Itoa(off) + `},` +
		`{"path":"boot/grub/grub.cfg","offset":` + strconv.Itoa(goff) + `,"pad":"#","end":"\n"}]}`
	return map[string][]byte{
		"coreos/igninfo.json":   []byte(`{"file": "images/ignition.img"}`),
		"coreos/kargs.json":     []byte(kargs),
		"images/ignition.img":   make([]byte, testAreaSize),
		"images/vmlinuz":        bytes.Repeat([]byte("kernel"), 5000),
		"images/initrd.img":     bytes.Repeat([]byte("initrd"), 7000),
		"isolinux/isolinux.cfg": cfg,
		"boot/grub/grub.cfg":    grub,
	}
}

// makeISO writes tree to a directory and builds an ISO from it with
// xorriso (Rock Ridge and Joliet on, like a live ISO).
func makeISO(t *testing.T, tree map[string][]byte) string {
	t.Helper()
	if _, err := exec.LookPath("xorriso"); err != nil {
		t.Skip("xorriso not installed (Debian package xorriso)")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "tree")
	for name, data := range tree {
		p := filepath.Join(src, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "base.iso")
	cmd := exec.Command("xorriso", "-as", "mkisofs", "-quiet", "-R", "-J", "-V", "TESTISO", "-o", out, src)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("xorriso: %v\n%s", err, b)
	}
	return out
}

// tinyISO builds a minimal ISO9660 image by hand: PVD, terminator, root,
// /coreos with igninfo.json, /images with a one-sector ignition.img.
func tinyISO() []byte { return craftISO(sectorSize, [5]int{18, 19, 20, 21, 22}, 24) }

// compactISO is tinyISO with 512-byte blocks packed right after the PVD
// and no terminator: small inputs keep the fuzzer fast.
func compactISO() []byte { return craftISO(512, [5]int{68, 69, 70, 71, 72}, 73) }

// craftISO lays out root, coreos, images, igninfo.json and ignition.img at
// the given logical blocks of size bs; the image is n blocks long.
func craftISO(bs int, lba [5]int, n int) []byte {
	img := make([]byte, n*bs)
	at := func(l int) []byte { return img[l*bs:] }
	pvd := img[16*sectorSize:]
	pvd[0] = 1
	copy(pvd[1:6], "CD001")
	pvd[6] = 1
	binary.LittleEndian.PutUint32(pvd[80:], uint32(n))
	binary.LittleEndian.PutUint16(pvd[128:], uint16(bs))
	putRecord(pvd[156:], "\x00", lba[0], bs, true)
	if bs == sectorSize {
		term := img[17*sectorSize:]
		term[0] = 255
		copy(term[1:6], "CD001")
	}
	info := []byte(`{"file":"/images/ignition.img"}`)
	dir(at(lba[0]), lba[0], lba[0], bs, [][4]any{{"COREOS", lba[1], bs, true}, {"IMAGES", lba[2], bs, true}})
	dir(at(lba[1]), lba[1], lba[0], bs, [][4]any{{"IGNINFO.JSO;1", lba[3], len(info), false}})
	dir(at(lba[2]), lba[2], lba[0], bs, [][4]any{{"IGNITION.IMG;1", lba[4], bs, false}})
	copy(at(lba[3]), info)
	return img
}

func dir(b []byte, self, parent, bs int, entries [][4]any) {
	pos := putRecord(b, "\x00", self, bs, true)
	pos += putRecord(b[pos:], "\x01", parent, bs, true)
	for _, e := range entries {
		pos += putRecord(b[pos:], e[0].(string), e[1].(int), e[2].(int), e[3].(bool))
	}
}

func putRecord(b []byte, name string, lba, size int, isDir bool) int {
	n := 33 + len(name)
	n += n % 2
	b[0] = byte(n)
	binary.LittleEndian.PutUint32(b[2:], uint32(lba))
	binary.BigEndian.PutUint32(b[6:], uint32(lba))
	binary.LittleEndian.PutUint32(b[10:], uint32(size))
	binary.BigEndian.PutUint32(b[14:], uint32(size))
	if isDir {
		b[25] = flagDirectory
	}
	b[32] = byte(len(name))
	copy(b[33:], name)
	return n
}
