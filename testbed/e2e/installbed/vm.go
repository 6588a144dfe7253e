package installbed

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rackboot/rackboot/testbed/image"
	"github.com/rackboot/rackboot/testbed/qemu"
)

// Console markers of the installed testbed OS (testbed/osimage) and of the
// first-boot report (boot/installer).
const (
	MarkerOSBoot        = "RACKBOOT-OS-BOOT"
	MarkerFirstBootDone = "RACKBOOT-FIRSTBOOT-DONE"
	MarkerRole          = "RACKBOOT-ROLE"
	MarkerOSReady       = "RACKBOOT-OS-READY"
)

// Regexps of the markers a driver waits for.
var (
	AgentStartRE = regexp.MustCompile(regexp.QuoteMeta(image.MarkerAgentStart))
	OSBootRE     = regexp.MustCompile(regexp.QuoteMeta(MarkerOSBoot))
	FirstBootRE  = regexp.MustCompile(regexp.QuoteMeta(MarkerFirstBootDone))
)

// BootLimit bounds one OVMF boot under TCG on a busy machine (power-on to
// the agent, or reboot to the installed OS); it only ends a hung VM.
const BootLimit = 10 * time.Minute

// VM is a node's running QEMU.
type VM struct {
	*qemu.VM
	Node    Node
	Started time.Time
	Disk    string // the node's disk file

	mu   sync.Mutex
	seen map[string][]time.Time // marker → when each occurrence was first seen
}

// watched are the markers whose times a VM records.
var watched = []string{image.MarkerAgentStart, MarkerOSBoot, MarkerFirstBootDone}

// watch records, every 250 ms until the VM exits, when each occurrence of
// the watched markers showed up on the console.
func (vm *VM) watch() {
	for {
		console := vm.Console()
		now := time.Now()
		vm.mu.Lock()
		for _, m := range watched {
			for n := strings.Count(console, m); len(vm.seen[m]) < n; {
				vm.seen[m] = append(vm.seen[m], now)
			}
		}
		vm.mu.Unlock()
		select {
		case <-vm.Done():
			return
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// Seen is when occurrence i (from 0) of a watched marker appeared on the
// console (zero: not yet).
func (vm *VM) Seen(marker string, i int) time.Time {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	if i < len(vm.seen[marker]) {
		return vm.seen[marker][i]
	}
	return time.Time{}
}

// Boot powers node n on: OVMF on q35, 2 CPUs as n says, its NIC on its tap
// and a fresh sparse disk. The firmware tries the disk first, then the
// network: the empty disk has nothing to boot, so the VM network-boots
// discovery; once the OS is written it boots the disk. (Network first
// works too — the installed host's script, `exit 1`, makes OVMF go on to
// the next boot option, as testbed/osimage's
// TestIPXEExitScriptFallsThroughToDiskUnderOVMF shows — but OVMF then
// tries its other network boot options first, about 100 s each under TCG,
// so every installed reboot would cost minutes here. AssertExitScript
// checks the script over HTTP.) A guest reboot restarts the firmware. The
// VM runs until Close.
func (b *Bed) Boot(ctx context.Context, n Node) (*VM, error) {
	dir := filepath.Join(b.Dir, "vm-"+n.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	disk := filepath.Join(dir, "disk.img")
	f, err := os.Create(disk)
	if err != nil {
		return nil, err
	}
	err = f.Truncate(n.DiskGiB << 30)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("%w: disk of %s: %w", ErrBed, n.Name, err)
	}
	if strings.ContainsAny(disk, ",\n") {
		return nil, fmt.Errorf("%w: disk path %q holds a comma or newline", ErrBed, disk)
	}
	// The NIC gets bootindex 1 (qemu.BootNetwork under UEFI); the disk,
	// attached here, 0.
	cfg := qemu.Config{Firmware: qemu.UEFI, MAC: n.MAC, Tap: n.Tap, Dir: dir, MemoryMB: n.MemoryMB, Boot: qemu.BootNetwork,
		Extra: []string{"-smp", strconv.Itoa(max(n.CPUs, 1)),
			"-drive", "file=" + disk + ",format=raw,if=none,id=disk0", "-device", "virtio-blk-pci,drive=disk0,bootindex=0"}}
	q, err := qemu.Start(context.WithoutCancel(ctx), b.NS, cfg)
	if err != nil {
		return nil, err
	}
	vm := &VM{VM: q, Node: n, Started: time.Now(), Disk: disk, seen: map[string][]time.Time{}}
	go vm.watch()
	b.mu.Lock()
	b.vms = append(b.vms, vm)
	b.mu.Unlock()
	return vm, nil
}

// BootWaves boots nodes at most wave at a time: each wave's VMs are
// powered on together, and the next wave starts once every VM of this one
// printed until (e.g. AgentStartRE). Each TCG VM takes most of a core while
// it boots; booted, the discovery image idles.
func (b *Bed) BootWaves(ctx context.Context, nodes []Node, wave int, until *regexp.Regexp, log func(string)) ([]*VM, error) {
	var all []*VM
	for i := 0; i < len(nodes); i += wave {
		group := nodes[i:min(i+wave, len(nodes))]
		var vms []*VM
		for _, n := range group {
			vm, err := b.Boot(ctx, n)
			if err != nil {
				return all, err
			}
			log(fmt.Sprintf("powered on %s (MAC %s, %d CPUs, %d MiB, %d GiB disk)", n.Name, n.MAC, n.CPUs, n.MemoryMB, n.DiskGiB))
			vms = append(vms, vm)
			all = append(all, vm)
		}
		for _, vm := range vms {
			if err := vm.Await(ctx, until, BootLimit); err != nil {
				return all, err
			}
			log(fmt.Sprintf("%s: %s after %s", vm.Node.Name, until, time.Since(vm.Started).Round(time.Second)))
		}
	}
	return all, nil
}

// Await waits up to limit for the console to match re.
func (vm *VM) Await(ctx context.Context, re *regexp.Regexp, limit time.Duration) error {
	wctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	if _, err := vm.WaitFor(wctx, re); err != nil {
		return fmt.Errorf("%w: %s never printed %q: %w\n--- console (last 40 lines) ---\n%s", ErrTimeout, vm.Node.Name, re, err, vm.ConsoleTail(40))
	}
	return nil
}

// Count is how often the console holds marker.
func (vm *VM) Count(marker string) int { return strings.Count(vm.Console(), marker) }

// AwaitCount waits up to limit until the console holds marker n times.
func (vm *VM) AwaitCount(ctx context.Context, marker string, n int, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for vm.Count(marker) < n {
		if time.Now().After(deadline) {
			return fmt.Errorf("%w: %s printed %s %d times, want %d\n--- console (last 40 lines) ---\n%s",
				ErrTimeout, vm.Node.Name, marker, vm.Count(marker), n, vm.ConsoleTail(40))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-vm.Done():
			return fmt.Errorf("%w: %s exited: %s", ErrBed, vm.Node.Name, vm.Stderr())
		case <-time.After(500 * time.Millisecond):
		}
	}
	return nil
}
