package iso

import (
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/cavaliergopher/cpio"
	"github.com/rackboot/rackboot/boot/initrd"
)

const testIgnition = `{"ignition":{"version":"3.4.0"},"passwd":{"users":[{"name":"core"}]}}`

func openTestBase(t *testing.T, tree map[string][]byte) (*Base, []byte) {
	t.Helper()
	path := makeISO(t, tree)
	b, err := OpenBase(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b, raw
}

func readAll(t *testing.T, img *Image) []byte {
	t.Helper()
	out, err := io.ReadAll(io.NewSectionReader(img, 0, img.Size()))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// unpackArea decompresses an embed area and returns the cpio's files.
func unpackArea(t *testing.T, area []byte) map[string][]byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(area))
	if err != nil {
		t.Fatalf("embed area is not gzip: %v", err)
	}
	zr.Multistream(false)
	files := map[string][]byte{}
	cr := cpio.NewReader(zr)
	for {
		h, err := cr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("embed area cpio: %v", err)
		}
		data, err := io.ReadAll(cr)
		if err != nil {
			t.Fatal(err)
		}
		if h.Mode.Perm() != 0o644 {
			t.Errorf("%s mode %v, want 0644", h.Name, h.Mode)
		}
		files[h.Name] = data
	}
	return files
}

func TestInspectFindsAreasFromIgnInfo(t *testing.T) {
	b, raw := openTestBase(t, testTree(t))
	l := b.Layout()
	if l.Ignition.Length != testAreaSize {
		t.Fatalf("embed area length %d, want %d", l.Ignition.Length, testAreaSize)
	}
	if l.Kargs == nil || len(l.Kargs.Regions) != 2 || l.Kargs.Default != testDefault || l.Kargs.Size != testKargsSize {
		t.Fatalf("kargs areas %+v", l.Kargs)
	}
	for _, r := range l.Kargs.Regions {
		got := string(raw[r.Offset : r.Offset+r.Length])
		if !strings.HasPrefix(got, testDefault+"\n###") {
			t.Errorf("kargs region at %d holds %q", r.Offset, got[:40])
		}
	}
}

func TestOverlayChangesOnlyTheEmbedArea(t *testing.T) {
	b, raw := openTestBase(t, testTree(t))
	img, err := b.Overlay(Custom{Ignition: []byte(testIgnition)})
	if err != nil {
		t.Fatal(err)
	}
	got := readAll(t, img)
	a := b.Layout().Ignition
	if len(got) != len(raw) {
		t.Fatalf("overlay is %d bytes, base %d", len(got), len(raw))
	}
	if !bytes.Equal(got[:a.Offset], raw[:a.Offset]) || !bytes.Equal(got[a.Offset+a.Length:], raw[a.Offset+a.Length:]) {
		t.Fatal("overlay differs from the base outside the embed area")
	}
	area := got[a.Offset : a.Offset+a.Length]
	files := unpackArea(t, area)
	if string(files["config.ign"]) != testIgnition || len(files) != 1 {
		t.Fatalf("embed area holds %q", files)
	}
	archive, err := initrd.Appendix([]byte(testIgnition))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(area[:len(archive)], archive) || !bytes.Equal(area[len(archive):], make([]byte, len(area)-len(archive))) {
		t.Error("embed area is not the initrd appendix followed by zeros")
	}
}

func TestOverlayFallsBackToIgnitionImg(t *testing.T) {
	tree := testTree(t)
	delete(tree, "coreos/igninfo.json")
	delete(tree, "coreos/kargs.json")
	b, raw := openTestBase(t, tree)
	if b.Layout().Kargs != nil {
		t.Errorf("kargs areas without kargs.json: %+v", b.Layout().Kargs)
	}
	img, err := b.Overlay(Custom{Ignition: []byte(testIgnition)})
	if err != nil {
		t.Fatal(err)
	}
	a := b.Layout().Ignition
	if a.Length != testAreaSize || !bytes.Equal(raw[a.Offset:a.Offset+a.Length], make([]byte, a.Length)) {
		t.Fatalf("embed area %+v is not the zero-filled ignition.img", a)
	}
	got := readAll(t, img)
	if string(unpackArea(t, got[a.Offset:a.Offset+a.Length])["config.ign"]) != testIgnition {
		t.Fatal("config.ign not in the fallback area")
	}
	if _, err := b.Overlay(Custom{ExtraKernelArgs: "x=1"}); !errors.Is(err, ErrNoKargsArea) {
		t.Fatalf("kargs without an area: %v", err)
	}
}

func TestIgnInfoOffsetAndLength(t *testing.T) {
	tree := testTree(t)
	tree["coreos/igninfo.json"] = []byte(`{"file":"images/ignition.img","offset":4096,"length":8192}`)
	b, _ := openTestBase(t, tree)
	whole := testTree(t)
	delete(whole, "coreos/igninfo.json")
	if b.Layout().Ignition.Length != 8192 {
		t.Fatalf("area %+v, want 8192 bytes", b.Layout().Ignition)
	}
	tree["coreos/igninfo.json"] = []byte(`{"file":"images/ignition.img","offset":60000,"length":8192}`)
	path := makeISO(t, tree)
	if _, err := OpenBase(path); !errors.Is(err, ErrNoEmbedArea) {
		t.Fatalf("length beyond the file: %v", err)
	}
}

func TestOverlayTooLarge(t *testing.T) {
	b, _ := openTestBase(t, testTree(t))
	big := make([]byte, 2*testAreaSize)
	rand.Read(big)
	_, err := b.Overlay(Custom{Ignition: big})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("got %v, want ErrTooLarge", err)
	}
	if !strings.Contains(err.Error(), "holds 65536") || !strings.Contains(err.Error(), "131072 bytes") {
		t.Errorf("error names neither limit nor size: %v", err)
	}
}

func TestOverlayKernelArgs(t *testing.T) {
	b, raw := openTestBase(t, testTree(t))
	img, err := b.Overlay(Custom{Ignition: []byte(testIgnition), ExtraKernelArgs: " rackboot.test=1 "})
	if err != nil {
		t.Fatal(err)
	}
	got := readAll(t, img)
	want := testDefault + " rackboot.test=1\n"
	for _, r := range b.Layout().Kargs.Regions {
		region := got[r.Offset : r.Offset+r.Length]
		if !strings.HasPrefix(string(region), want) || strings.Trim(string(region[len(want):]), "#") != "" {
			t.Errorf("kargs region at %d: %q", r.Offset, region)
		}
		// The config around the area is intact.
		if !bytes.Equal(got[r.Offset+r.Length:r.Offset+r.Length+20], raw[r.Offset+r.Length:r.Offset+r.Length+20]) {
			t.Error("bytes after the kargs area changed")
		}
	}
	for _, bad := range []string{"a=1\nMENU x", "a=1\x00", "a=#1", strings.Repeat("x", testKargsSize)} {
		_, err := b.Overlay(Custom{ExtraKernelArgs: bad})
		if !errors.Is(err, ErrBadKernelArgs) && !errors.Is(err, ErrTooLarge) {
			t.Errorf("kargs %q: %v", bad, err)
		}
	}
}

func TestETag(t *testing.T) {
	b, _ := openTestBase(t, testTree(t))
	one, _ := b.Overlay(Custom{Ignition: []byte(testIgnition)})
	same, _ := b.Overlay(Custom{Ignition: []byte(testIgnition)})
	other, _ := b.Overlay(Custom{Ignition: []byte(`{"ignition":{"version":"3.4.0"}}`)})
	if one.ETag() != same.ETag() || one.ETag() == other.ETag() {
		t.Fatalf("etags %s %s %s", one.ETag(), same.ETag(), other.ETag())
	}
	if !strings.HasPrefix(one.ETag(), `"`) || strings.HasPrefix(one.ETag(), `W/`) {
		t.Fatalf("not a strong etag: %s", one.ETag())
	}
}

func TestParseErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := dir + "/" + name
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	full := tinyISO()
	cases := []struct {
		name string
		data []byte
		want error
		text string
	}{
		{"empty", nil, ErrNotISO, "no volume descriptor"},
		{"text", bytes.Repeat([]byte("not an iso\n"), 5000), ErrNotISO, "CD001"},
		{"short", full[:20000], ErrNotISO, "image is 20000 bytes"},
		{"cut-pvd", full[:16*sectorSize+100], ErrNotISO, "no volume descriptor"},
		{"cut-dirs", full[:19*sectorSize], ErrTruncated, "file only"},
	}
	for _, c := range cases {
		_, err := OpenBase(write(c.name, c.data))
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.text) {
			t.Errorf("%s: got %v, want %v mentioning %q", c.name, err, c.want, c.text)
		}
	}
	for _, img := range [][]byte{full, compactISO()} {
		l, err := Inspect(bytes.NewReader(img), int64(len(img)))
		if err != nil || l.Ignition.Length == 0 {
			t.Fatalf("an intact crafted ISO: %+v, %v", l, err)
		}
	}
}
