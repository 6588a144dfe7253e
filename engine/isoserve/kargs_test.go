package isoserve_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/boot/iso"
	"github.com/rackboot/rackboot/engine"
)

// makeKargsISO is makeISO with an isolinux.cfg whose APPEND line is a
// kargs area that coreos/kargs.json describes.
func makeKargsISO(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("xorriso"); err != nil {
		t.Skip("xorriso not installed (Debian package xorriso)")
	}
	const def, size = "console=ttyS0 quiet", 256
	head := "DEFAULT x\nLABEL x\n  KERNEL /images/vmlinuz\n  APPEND "
	cfg := head + def + "\n" + strings.Repeat("#", size-len(def)-1) + "\n"
	tree := map[string]string{
		"coreos/igninfo.json":   `{"file": "images/ignition.img"}`,
		"coreos/kargs.json":     `{"default":"` + def + `","size":` + strconv.Itoa(size) + `,"files":[{"path":"isolinux/isolinux.cfg","offset":` + strconv.Itoa(len(head)) + `}]}`,
		"images/ignition.img":   string(make([]byte, 64<<10)),
		"isolinux/isolinux.cfg": cfg,
	}
	dir := t.TempDir()
	for name, data := range tree {
		p := filepath.Join(dir, "tree", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "base.iso")
	if b, err := exec.Command("xorriso", "-as", "mkisofs", "-quiet", "-R", "-J", "-V", "TEST", "-o", out, filepath.Join(dir, "tree")).CombinedOutput(); err != nil {
		t.Fatalf("xorriso: %v\n%s", err, b)
	}
	return out
}

// The discovery ISO carries the infra-env's kernel arguments in its kargs
// area, and a change of them is served at once.
func TestDiscoveryISOKernelArguments(t *testing.T) {
	base := makeKargsISO(t)
	b := newBed(t, base)
	bb, err := iso.OpenBase(base)
	if err != nil {
		t.Fatal(err)
	}
	region := bb.Layout().Kargs.Regions[0]
	bb.Close()
	kargsOf := func() string {
		t.Helper()
		u, err := b.srv.ISOURL(t.Context(), ieID)
		if err != nil {
			t.Fatal(err)
		}
		res, img := get(t, "GET", u, nil)
		if res.StatusCode != 200 {
			t.Fatalf("GET: %d", res.StatusCode)
		}
		line, _, _ := strings.Cut(string(img[region.Offset:region.Offset+region.Length]), "\n")
		return line
	}
	if got := kargsOf(); got != "console=ttyS0 quiet" {
		t.Fatalf("kargs without kernel arguments: %q", got)
	}
	for _, tc := range []struct {
		args []engine.KernelArgument
		want string
	}{
		{[]engine.KernelArgument{{Operation: "append", Value: "rd.net.timeout.carrier=60"}}, "console=ttyS0 quiet rd.net.timeout.carrier=60"},
		{[]engine.KernelArgument{{Operation: "delete", Value: "quiet"}, {Operation: "replace", Value: "console=tty0"}}, "console=tty0"},
	} {
		ka := tc.args
		if _, err := b.st.Apply(t.Context(), &engine.UpdateInfraEnv{ID: ieID, Patch: engine.InfraEnvPatch{KernelArguments: &ka}}); err != nil {
			t.Fatal(err)
		}
		if got := kargsOf(); got != tc.want {
			t.Errorf("kargs with %v: %q, want %q", tc.args, got, tc.want)
		}
	}
}
