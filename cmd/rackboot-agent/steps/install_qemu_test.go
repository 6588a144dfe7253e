package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/cmd/rackboot-agent/internal/fakesvc"
	"github.com/rackboot/rackboot/cmd/rackboot-agent/internal/vmtest"
	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/testbed/netns"
	"github.com/rackboot/rackboot/testbed/qemu"
)

// installVMRun is what the VM's /init does after vmtest's set-up (eth0 at
// vmtest.Addr on the test bridge): run the real rackboot-agent, then power
// off. A reboot (what the agent does after a successful install) ends QEMU
// (-no-reboot) before the marker.
const installVMRun = `for m in %s; do insmod /lib/modules/$m.ko; done
RACKBOOT_TOKEN=%s /rackboot-agent --url http://192.0.2.1:8090 --infra-env-id %s --host-id %s
echo RACKBOOT-INSTALL-AGENT-EXIT $?
`

// mountModules are what the agent needs to mount the image's boot file
// system in the VM (loop devices, ext4), in load order.
var mountModules = []string{"loop", "crc32c_generic", "crc16", "mbcache", "jbd2", "ext4"}

// TestInstallInQEMU runs the real rackboot-agent binary in a QEMU VM
// against a loopback-only service in a network namespace: it gets an
// install step, writes the CoreOS-shaped disk image to /dev/vda (a file on
// this machine) and the Ignition to ignition/config.ign on its boot file
// system (mounted in the VM through a loop device), reports the stages and
// reboots the VM. Needs
// RACKBOOT_E2E=1 and root; run it under the QEMU lock:
//
//	flock /tmp/rackboot-qemu.lock env RACKBOOT_E2E=1 go test -run TestInstallInQEMU ./cmd/rackboot-agent/steps
func TestInstallInQEMU(t *testing.T) {
	vmtest.RequireE2E(t)
	if err := netns.Available(); err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	art := vmtest.BootImage(ctx, t)
	initrd := vmtest.Initrd(ctx, t, art.Initrd, t.TempDir(), "github.com/rackboot/rackboot/cmd/rackboot-agent", "rackboot-agent",
		vmtest.Init("vda", fmt.Sprintf(installVMRun, strings.Join(mountModules, " "), installToken, installInfraEnv, installHost)),
		vmtest.Modules(ctx, t, mountModules...)...)

	ns, err := netns.New(ctx, "rbinst")
	if err != nil {
		t.Fatal(err)
	}
	defer ns.Close()
	if err := ns.AddBridge(ctx, "br0", "192.0.2.1/24"); err != nil {
		t.Fatal(err)
	}
	if err := ns.AddTap(ctx, "tap0", "br0"); err != nil {
		t.Fatal(err)
	}
	var ln net.Listener
	if err := ns.Do(func() (err error) { ln, err = net.Listen("tcp", "192.0.2.1:8090"); return err }); err != nil {
		t.Fatal(err)
	}
	svc := fakesvc.New(installInfraEnv, installToken)
	e := &installEnv{t: t, image: testImage(t), config: testConfig(1000), url: "http://192.0.2.1:8090"}
	srv := &http.Server{Handler: e.handler(svc.Handler()), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()
	svc.Push(models.Steps{Instructions: []*models.Step{{StepID: "install-00000001", StepType: models.StepTypeInstall,
		Args: e.args("/dev/vda", nil)}}})

	dir := t.TempDir()
	disk := filepath.Join(dir, "vda.img")
	if err := os.WriteFile(disk, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(disk, 64<<20); err != nil {
		t.Fatal(err)
	}
	vm, err := qemu.Start(ctx, ns, qemu.Config{Firmware: qemu.BIOS, MAC: "52:54:00:77:00:01", Tap: "tap0", Dir: dir,
		Disk: disk, Boot: qemu.BootDisk, NoReboot: true, MemoryMB: 512,
		Extra: []string{"-kernel", art.Kernel, "-initrd", initrd, "-append", "console=ttyS0 panic=-1"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := vm.Wait(ctx); err != nil {
		t.Fatalf("qemu: %v\nconsole:\n%s", err, vm.ConsoleTail(60))
	}
	console := vm.Console()
	if strings.Contains(console, "RACKBOOT-INSTALL-AGENT-EXIT") || !strings.Contains(console, "reboot: Restarting system") {
		t.Fatalf("the agent did not reboot the VM:\n%s", qemu.Tail(console, 60))
	}
	if strings.Contains(console, installToken) || strings.Contains(console, ignitionSecret) {
		t.Errorf("a secret reached the console")
	}
	checkInstalled(t, readFile(t, disk), e.image, e.config, 0)
	checkProgress(t, e)
	replies := svc.Replies()
	if len(replies) != 1 || replies[0].StepID != "install-00000001" || replies[0].ExitCode != 0 {
		t.Fatalf("step replies %+v", replies)
	}
	var res InstallResult
	if err := json.Unmarshal([]byte(replies[0].Output), &res); err != nil || !res.Reboot || res.BootDevice != "/dev/vda" {
		t.Fatalf("install output %q: %v", replies[0].Output, err)
	}
}
