package osimage

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/testbed/internal/buildfs"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestSharedLibs lists curl's libraries as the initrd carries them and
// refuses a program ldd cannot read, with ErrBuild.
func TestSharedLibs(t *testing.T) {
	curl, err := lookPath("curl")
	if err != nil {
		t.Skip(err)
	}
	libs, err := sharedLibs(context.Background(), curl)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range libs {
		names = append(names, l.Name)
	}
	if got := strings.Join(names, " "); !strings.Contains(got, "libcurl.so.4") || !strings.Contains(got, "ld-linux") {
		t.Errorf("curl's libraries = %s, want libcurl and the dynamic loader", got)
	}
	script := filepath.Join(t.TempDir(), "script")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := sharedLibs(context.Background(), script); !errors.Is(err, ErrBuild) {
		t.Errorf("a script: %v, want ErrBuild", err)
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
		libs: []buildfs.Lib{{Name: "lib/x86_64-linux-gnu/libc.so.6", Src: write("libc", "libc")},
			{Name: "lib64/ld-linux-x86-64.so.2", Src: write("ld", "ld.so")}},
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
