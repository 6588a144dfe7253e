package osimage

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestParseLdd(t *testing.T) {
	out := "\tlinux-vdso.so.1 (0x00007ffd)\n" +
		"\tlibcurl.so.4 => /lib/x86_64-linux-gnu/libcurl.so.4 (0x00007f75)\n" +
		"\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f75)\n" +
		"\t/lib64/ld-linux-x86-64.so.2 (0x00007f75)\n"
	got, err := parseLdd(out)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/lib/x86_64-linux-gnu/libc.so.6", "/lib/x86_64-linux-gnu/libcurl.so.4", "/lib64/ld-linux-x86-64.so.2"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("parseLdd = %q, want %q", got, want)
	}
	for name, bad := range map[string]string{
		"not found": "\tlibfoo.so.1 => not found\n",
		"empty":     "",
		"dotdot":    "\tlibx.so => /lib/../etc/libx.so (0x1)\n",
	} {
		if _, err := parseLdd(bad); !errors.Is(err, ErrBuild) {
			t.Errorf("%s: %v, want ErrBuild", name, err)
		}
	}
}

// TestInitGolden pins the OS /init (go test -update, then review the diff).
func TestInitGolden(t *testing.T) {
	got := initScript()
	golden := filepath.Join("testdata", "init.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("/init differs from %s (go test -update)", golden)
	}
	for _, s := range []string{"RACKBOOT-OS-BOOT", "RACKBOOT-OS-READY", "RACKBOOT-IGNITION-APPLIED", "findfs LABEL=boot",
		"mount -t ext4", "/boot/ignition/config.ign", "/usr/lib/ignition/user.ign", "--platform=metal",
		`*" ignition.firstboot "*)`, "rm -f /boot/ignition/config.ign /boot/ignition.firstboot", "multi-user.target.wants",
		"20-ignition.preset", "udhcpc", "insmod", "ext4"} {
		if !strings.Contains(got, s) {
			t.Errorf("/init lacks %q", s)
		}
	}
	if m := regexp.MustCompile(`@[A-Z_]+@`).FindString(got); m != "" {
		t.Errorf("/init has an unfilled placeholder %s", m)
	}
}

func fakeOSInputs(t *testing.T) initrdInputs {
	t.Helper()
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	in := initrdInputs{
		busybox:  write("busybox", "\x7fELF busybox"),
		ignition: write("ignition", "\x7fELF ignition"),
		curl:     write("curl", "\x7fELF curl"),
		libs: []lib{{name: "lib/x86_64-linux-gnu/libc.so.6", src: write("libc", "libc")},
			{name: "lib64/ld-linux-x86-64.so.2", src: write("ld", "ld.so")}},
		modules: map[string]string{},
	}
	for _, m := range osModules() {
		in.modules[m] = write(m+".ko", "module "+m)
	}
	return in
}

func TestWriteInitrd(t *testing.T) {
	in := fakeOSInputs(t)
	var a, b bytes.Buffer
	if err := writeInitrd(&a, in); err != nil {
		t.Fatal(err)
	}
	if err := writeInitrd(&b, in); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two initrds from the same inputs differ")
	}
	files := initrdNames(t, a.Bytes())
	for name, body := range map[string]string{
		"init": initScript(), BusyboxPath: "\x7fELF busybox", IgnitionPath: "\x7fELF ignition", CurlPath: "\x7fELF curl",
		"lib64/ld-linux-x86-64.so.2": "ld.so", "lib/modules/virtio_net.ko": "module virtio_net",
	} {
		if got, ok := files[name]; !ok || got != body {
			t.Errorf("%s = %q (present %t), want %q", name, got, ok, body)
		}
	}
	for _, d := range []string{"lib64", "lib/x86_64-linux-gnu", "usr/local/bin", "etc/systemd/system", "proc", "sys", "dev"} {
		if _, ok := files[d]; !ok {
			t.Errorf("no directory %s", d)
		}
	}
	delete(in.modules, "virtio_blk")
	if err := writeInitrd(&a, in); !errors.Is(err, ErrBuild) {
		t.Errorf("without virtio_blk: %v, want ErrBuild", err)
	}
}
