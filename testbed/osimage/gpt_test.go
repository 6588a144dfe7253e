package osimage

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
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

func TestWriteIgnition(t *testing.T) {
	path := sgdiskImage(t)
	before, _ := os.ReadFile(path)
	cfg := []byte(`{"ignition":{"version":"3.4.0"}}`)
	// Garbage left by an earlier write must not survive.
	junk := bytes.Clone(before)
	for i := 2 * mib; i < 2*mib+4096; i++ {
		junk[i] = 'x'
	}
	if err := os.WriteFile(path, junk, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteIgnition(path, cfg); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(path)
	part := after[2*mib : 2*mib+512*1024]
	if !bytes.Equal(part[:len(cfg)], cfg) || !allZero(part[len(cfg):]) {
		t.Errorf("partition holds %q...", part[:min(len(part), 64)])
	}
	if !bytes.Equal(after[:2*mib], before[:2*mib]) || !bytes.Equal(after[2*mib+512*1024:], before[2*mib+512*1024:]) {
		t.Error("WriteIgnition changed bytes outside the ignition partition")
	}
	for name, bad := range map[string][]byte{"too big": bytes.Repeat([]byte("x"), 512*1024+1), "nul": []byte("{}\x00{}")} {
		if err := WriteIgnition(path, bad); !errors.Is(err, ErrIgnition) {
			t.Errorf("%s: %v, want ErrIgnition", name, err)
		}
		if now, _ := os.ReadFile(path); !bytes.Equal(now, after) {
			t.Errorf("%s: the refused config changed the disk", name)
		}
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
