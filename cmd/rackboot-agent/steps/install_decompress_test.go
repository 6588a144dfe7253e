package steps

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"
)

// noisyImage is testImage with its root partition filled with random
// bytes, so that it stays about 2 MiB compressed.
func noisyImage(t *testing.T) []byte {
	img := testImage(t)
	r := rand.New(rand.NewPCG(1, 2))
	for i := rootFirst * SectorSize; i < (rootLast+1)*SectorSize; i++ {
		img[i] = byte(r.Uint32())
	}
	return img
}

// compressWith runs the real compressor (xz or gzip, Debian's xz-utils
// and gzip) on raw, as the CoreOS metal images are made.
func compressWith(t *testing.T, tool string, raw []byte) []byte {
	t.Helper()
	if _, err := exec.LookPath(tool); err != nil {
		t.Skipf("%s not installed", tool)
	}
	cmd := exec.Command(tool, "-c", "-1")
	cmd.Stdin = bytes.NewReader(raw)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return out
}

// TestInstallDecompressesMetalImages: a .raw.xz or .raw.gz image (the
// served file is what the stream names; its sha256 is the compressed
// file's) is decompressed on the fly onto the device, also across a
// dropped connection resumed with Range on the compressed file.
func TestInstallDecompressesMetalImages(t *testing.T) {
	requireMount(t)
	for _, tc := range []struct{ tool, decoder string }{{"xz", ""}, {"xz", "none"}, {"gzip", ""}} {
		tool := tc.tool
		for _, drop := range []int{0, 1<<20 + 4321} {
			raw := noisyImage(t)
			cfg := testConfig(500)
			e := newInstallEnv(t, compressWith(t, tool, raw), cfg)
			e.dropAfter, e.xz = drop, tc.decoder
			dev, _ := e.device(6 << 20)
			rep := e.run(e.args(dev, nil))
			if rep.ExitCode != 0 {
				t.Fatalf("%s (drop %d): reply %+v", tool, drop, rep)
			}
			var res InstallResult
			if err := json.Unmarshal([]byte(rep.Output), &res); err != nil || res.ImageBytes != int64(len(raw)) {
				t.Errorf("%s: output %s (%v), want %d raw bytes written", tool, rep.Output, err, len(raw))
			}
			checkInstalled(t, readFile(t, dev), raw, cfg, 0x5a)
			checkProgress(t, e)
			if drop > 0 && (len(e.ranges) < 2 || e.ranges[1] != "bytes="+itoa(drop)+"-") {
				t.Errorf("%s: requests %q, want a resume at byte %d", tool, e.ranges, drop)
			}
		}
	}
}

// TestInstallRefusesACorruptCompressedImage: bytes that are not the xz
// stream their magic promises fail the step with the reason, with the
// system's xz and with the Go decoder.
func TestInstallRefusesACorruptCompressedImage(t *testing.T) {
	img := compressWith(t, "xz", noisyImage(t))
	img = img[:len(img)/2] // truncated
	for _, decoder := range []string{"", "none"} {
		e := newInstallEnv(t, img, testConfig(0))
		e.xz = decoder
		dev, _ := e.device(6 << 20)
		rep := e.run(e.args(dev, nil))
		if last := e.lastStage(); rep.ExitCode == 0 || !strings.Contains(last.ProgressInfo, "xz disk image") {
			t.Errorf("decoder %q: reply %+v, last stage %+v", decoder, rep, last)
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
