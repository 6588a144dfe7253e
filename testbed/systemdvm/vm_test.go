package systemdvm

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/rackboot/rackboot/testbed/image"
)

// requireVM skips unless RACKBOOT_E2E_SYSTEMD=1 (make e2e-systemd) and
// then fails on a missing tool instead of skipping.
func requireVM(t *testing.T) {
	t.Helper()
	if os.Getenv("RACKBOOT_E2E_SYSTEMD") != "1" {
		t.Skip("set RACKBOOT_E2E_SYSTEMD=1 to boot a Debian VM under systemd (make e2e-systemd)")
	}
	if os.Geteuid() != 0 {
		t.Fatal("RACKBOOT_E2E_SYSTEMD=1 needs root (debootstrap)")
	}
	for _, tool := range []string{"debootstrap", "mkfs.ext4", "qemu-system-x86_64", "dpkg-deb"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("RACKBOOT_E2E_SYSTEMD=1 but %s is missing (make deps): %v", tool, err)
		}
	}
}

// bootVM builds (or takes from the cache) the image and boots it with the
// files of dir on /dev/vdb, and waits for systemd to finish booting.
func bootVM(t *testing.T, ctx context.Context, files string) *VM {
	t.Helper()
	cache, err := image.DefaultCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	img, err := Build(ctx, filepath.Join(cache, "systemd-vm"), Mirror())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("image ready in %s: %s", time.Since(start).Round(time.Second), filepath.Dir(img.Root))
	start = time.Now()
	vm, err := Start(ctx, Config{Image: img, Files: files, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("VM console (last lines):\n%s", vm.ConsoleTail(40))
		}
		vm.Stop()
	})
	bootCtx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	res, err := vm.Run(bootCtx, "systemctl is-system-running --wait; systemctl --failed --no-legend; cat /proc/1/comm")
	if err != nil {
		t.Fatalf("the VM did not come up: %v", err)
	}
	t.Logf("booted to the command runner in %s: %s", time.Since(start).Round(time.Second), res.Output)
	return vm
}

func TestBoot(t *testing.T) {
	requireVM(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	vm := bootVM(t, ctx, "")
	res, err := vm.Run(ctx, "cat /proc/1/comm; systemctl is-system-running")
	if err != nil || res.Output != "systemd\nrunning\n" {
		t.Fatalf("PID 1 and system state: %q %v", res.Output, err)
	}
}
