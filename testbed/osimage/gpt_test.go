package osimage

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// sgdiskImage makes a small GPT disk with sgdisk, independently of
// makeDisk, for the reader's tests.
func sgdiskImage(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("sgdisk"); err != nil {
		t.Skip("no sgdisk")
	}
	path := filepath.Join(t.TempDir(), "disk.img")
	if err := os.WriteFile(path, make([]byte, 4*mib), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("sgdisk", "-o", "-n", "1:2048:+1M", "-t", "1:EF00", "-c", "1:esp",
		"-n", "2:0:+512K", "-c", "2:ignition", "-u", "2:0FC63DAF-8483-4772-8E79-3D69D8477DE4",
		"-n", "3:0:+64K", "-c", "3:ünïcode-näme", path).CombinedOutput()
	if err != nil {
		t.Fatalf("sgdisk: %v: %s", err, out)
	}
	return path
}

func TestReadGPT(t *testing.T) {
	path := sgdiskImage(t)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	parts, err := ReadGPT(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 3 {
		t.Fatalf("parts = %+v", parts)
	}
	if p := parts[0]; p.Name != "esp" || p.Type != ESPType || p.Offset() != mib || p.Size() != mib {
		t.Errorf("partition 1 = %+v", p)
	}
	if p := parts[1]; p.Name != "ignition" || p.GUID != "0FC63DAF-8483-4772-8E79-3D69D8477DE4" || p.Offset() != 2*mib || p.Size() != 512*1024 {
		t.Errorf("partition 2 = %+v", p)
	}
	if parts[2].Name != "ünïcode-näme" || parts[2].Number != 3 {
		t.Errorf("partition 3 = %+v", parts[2])
	}
	seed, err := os.ReadFile(filepath.Join("testdata", "gpt-seed.img"))
	if err != nil {
		t.Fatal(err)
	}
	if sp, err := ReadGPT(bytes.NewReader(seed)); err != nil || len(sp) != 2 || sp[1].Name != "ignition" {
		t.Errorf("fuzz seed: %+v, %v", sp, err)
	}
	if _, err := FindPartition(parts, "nope"); !errors.Is(err, ErrPartition) {
		t.Errorf("FindPartition(nope) = %v, want ErrPartition", err)
	}
}

func TestReadGPTRejectsDamage(t *testing.T) {
	orig, err := os.ReadFile(sgdiskImage(t))
	if err != nil {
		t.Fatal(err)
	}
	for name, off := range map[string]int{"signature": sector, "header crc": sector + 16, "entry": 2*sector + 60} {
		b := bytes.Clone(orig)
		b[off] ^= 0x55
		if _, err := ReadGPT(bytes.NewReader(b)); !errors.Is(err, ErrGPT) {
			t.Errorf("%s damaged: %v, want ErrGPT", name, err)
		}
	}
	if _, err := ReadGPT(bytes.NewReader(make([]byte, 4096))); !errors.Is(err, ErrGPT) {
		t.Errorf("zero disk: %v, want ErrGPT", err)
	}
	if _, err := ReadGPT(bytes.NewReader(orig[:700])); !errors.Is(err, ErrGPT) {
		t.Errorf("short disk: %v, want ErrGPT", err)
	}
}

// bootDisk makes a small GPT disk whose partition boot is an ext4 made by
// mkfs.ext4, independently of makeDisk.
func bootDisk(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"sgdisk", "mkfs.ext4", "debugfs"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s", tool)
		}
	}
	path := filepath.Join(t.TempDir(), "disk.img")
	if err := os.WriteFile(path, make([]byte, 8*mib), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("sgdisk", "-o", "-n", "1:2048:+1M", "-t", "1:EF00", "-c", "1:EFI-SYSTEM",
		"-n", "2:0:+4M", "-c", "2:boot", path).CombinedOutput(); err != nil {
		t.Fatalf("sgdisk: %v: %s", err, out)
	}
	if out, err := exec.Command("mkfs.ext4", "-q", "-F", "-L", "boot", "-E", fmt.Sprintf("offset=%d", 2*mib),
		path, "4096k").CombinedOutput(); err != nil {
		t.Fatalf("mkfs.ext4: %v: %s", err, out)
	}
	return path
}

// TestWriteIgnition: the config lands in ignition/config.ign on the boot
// file system (directory 0700, file 0600), a second write replaces it,
// and nothing outside the boot partition changes.
func TestWriteIgnition(t *testing.T) {
	path := bootDisk(t)
	before, _ := os.ReadFile(path)
	for _, cfg := range []string{`{"ignition":{"version":"3.4.0"},"storage":{"files":[]}}`, `{"ignition":{"version":"3.4.0"}}`} {
		if err := WriteIgnition(path, []byte(cfg)); err != nil {
			t.Fatal(err)
		}
		got, ok, err := ReadBootFile(t.Context(), path, ConfigPath)
		if err != nil || !ok || string(got) != cfg {
			t.Errorf("%s = %q (present %t, %v), want %q", ConfigPath, got, ok, err, cfg)
		}
	}
	fs := fmt.Sprintf("%s?offset=%d", path, 2*mib)
	for p, want := range map[string]string{"/ignition": "Mode:  0700", "/ignition/config.ign": "Mode:  0600"} {
		out, _ := exec.Command("debugfs", "-R", "stat "+p, fs).CombinedOutput()
		if !strings.Contains(string(out), want) {
			t.Errorf("%s: want %s, got\n%s", p, want, out)
		}
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(after[:2*mib], before[:2*mib]) || !bytes.Equal(after[6*mib:], before[6*mib:]) {
		t.Error("WriteIgnition changed bytes outside the boot partition")
	}
}

// TestWriteIgnitionWithoutBootPartition: a disk without a partition named
// boot is refused and left as it was.
func TestWriteIgnitionWithoutBootPartition(t *testing.T) {
	path := sgdiskImage(t)
	before, _ := os.ReadFile(path)
	if err := WriteIgnition(path, []byte(`{"ignition":{"version":"3.4.0"}}`)); !errors.Is(err, ErrPartition) {
		t.Errorf("WriteIgnition = %v, want ErrPartition", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Error("the refused write changed the disk")
	}
}

// FuzzReadGPT: any bytes give partitions or ErrGPT, never a panic, and
// partitions never end before they start.
func FuzzReadGPT(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("testdata", "gpt-seed.img")); err == nil {
		f.Add(b)
	}
	f.Add(make([]byte, 4096))
	f.Fuzz(func(t *testing.T, b []byte) {
		parts, err := ReadGPT(bytes.NewReader(b))
		if err != nil {
			if !errors.Is(err, ErrGPT) {
				t.Fatalf("error %v is not ErrGPT", err)
			}
			return
		}
		for _, p := range parts {
			if p.LastLBA < p.FirstLBA {
				t.Fatalf("partition %+v ends before it starts", p)
			}
		}
	})
}
