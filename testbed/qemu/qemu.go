package qemu

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Errors returned by this package.
var (
	ErrConfig  = errors.New("qemu: bad VM config")
	ErrExited  = errors.New("qemu: VM exited")
	ErrNoMatch = errors.New("qemu: console never matched")
)

// Firmware selects how the VM boots from the network.
type Firmware int

const (
	// BIOS is SeaBIOS with the NIC's iPXE option ROM (Debian's ipxe-qemu).
	BIOS Firmware = iota
	// UEFI is OVMF on q35, with the NIC's option ROM removed so that OVMF's
	// own PXE client runs.
	UEFI
)

func (f Firmware) String() string {
	if f == UEFI {
		return "uefi"
	}
	return "bios"
}

// BootOrder says what the firmware boots first when the VM has a Disk.
type BootOrder int

const (
	// BootNetwork boots from the network only, as without a disk (the
	// default; the disk is attached but has no boot index).
	BootNetwork BootOrder = iota
	// BootDisk boots from the disk; the NIC gets no boot index.
	BootDisk
	// BootNetworkThenDisk tries the network first and, when that fails,
	// the disk. Under UEFI it also turns off OVMF's IPv6 network boot
	// (fw_cfg opt/org.tianocore/IPv6Support), so that OVMF tries PXEv4
	// and HTTPv4 only before the disk: with no answer each gives up after
	// about 100 s under TCG. OVMF falls through only when a boot option
	// fails: Debian's ipxe.efi running a script's "exit" returns success,
	// and OVMF then opens its setup menu (UiApp) instead of the disk.
	BootNetworkThenDisk
	// BootDiskThenNetwork tries the disk first and the network when the
	// disk has nothing to boot (an empty disk is skipped at once): a host
	// that network-boots discovery until it is installed, then boots its
	// disk without asking the network.
	BootDiskThenNetwork
)

func (b BootOrder) String() string {
	switch b {
	case BootNetwork:
		return "network"
	case BootDisk:
		return "disk"
	case BootNetworkThenDisk:
		return "network-then-disk"
	case BootDiskThenNetwork:
		return "disk-then-network"
	}
	return fmt.Sprintf("BootOrder(%d)", int(b))
}

// Defaults for Config's zero values.
const (
	DefaultBinary   = "qemu-system-x86_64"
	DefaultOVMFCode = "/usr/share/OVMF/OVMF_CODE_4M.fd"
	DefaultOVMFVars = "/usr/share/OVMF/OVMF_VARS_4M.fd"
	DefaultMemoryMB = 512
)

// Config describes one VM. MAC, Tap and Dir are required.
type Config struct {
	Firmware Firmware
	MAC      string // NIC address, e.g. 52:54:00:00:00:01
	Tap      string // tap device (in the namespace QEMU runs in)
	Dir      string // holds console.log, qmp.sock and the UEFI variable store
	MemoryMB int    // default DefaultMemoryMB
	Binary   string // default DefaultBinary
	OVMFCode string // default DefaultOVMFCode
	OVMFVars string // template copied per VM; default DefaultOVMFVars
	// NoReboot makes QEMU exit when the guest reboots (a panicking guest
	// ends the VM). By default a guest reboot (or SystemReset) restarts
	// the firmware, which boots again in Boot's order.
	NoReboot bool
	// Disk is a raw disk image file attached as a virtio-blk disk (QEMU
	// writes to it); "" attaches none.
	Disk  string
	Boot  BootOrder // needs Disk unless BootNetwork
	Extra []string
}

// Commander makes commands; *netns.NS runs them inside its namespace.
type Commander interface {
	Command(ctx context.Context, name string, args ...string) *exec.Cmd
}

// VM is a running QEMU process.
type VM struct {
	cfg         Config
	ConsolePath string
	QMPPath     string

	cmd     *exec.Cmd
	stderr  *lockedBuffer
	done    chan struct{}
	waitErr error
}

// Args returns QEMU's command line (without the binary) for cfg.
func Args(cfg Config) ([]string, error) {
	if cfg.MAC == "" || cfg.Tap == "" || cfg.Dir == "" {
		return nil, fmt.Errorf("%w: MAC, Tap and Dir are required", ErrConfig)
	}
	if _, err := net.ParseMAC(cfg.MAC); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if strings.ContainsAny(cfg.MAC+cfg.Tap, ", ") {
		return nil, fmt.Errorf("%w: MAC and Tap may not hold commas or spaces", ErrConfig)
	}
	if err := checkDisk(cfg); err != nil {
		return nil, err
	}
	cfg = withDefaults(cfg)
	args := []string{
		"-name", "rackboot-" + strings.ReplaceAll(cfg.MAC, ":", ""),
		"-accel", "tcg", "-m", fmt.Sprint(cfg.MemoryMB),
		"-nographic", "-monitor", "none", "-parallel", "none",
		"-serial", "file:" + filepath.Join(cfg.Dir, "console.log"),
		"-qmp", "unix:" + filepath.Join(cfg.Dir, "qmp.sock") + ",server=on,wait=off",
		"-netdev", "tap,id=n0,ifname=" + cfg.Tap + ",script=no,downscript=no",
	}
	nic := "virtio-net-pci,netdev=n0,mac=" + cfg.MAC
	nicIndex, diskIndex := bootIndexes(cfg.Boot)
	switch cfg.Firmware {
	case BIOS:
		if cfg.Boot == BootNetwork {
			args = append(args, "-boot", "n")
		}
		args = append(args, "-device", nic+nicIndex)
	case UEFI:
		if cfg.Boot == BootNetwork {
			nicIndex = ",bootindex=1"
		}
		args = append(args,
			"-machine", "q35",
			"-drive", "if=pflash,format=raw,readonly=on,file="+cfg.OVMFCode,
			"-drive", "if=pflash,format=raw,file="+filepath.Join(cfg.Dir, "OVMF_VARS.fd"),
			"-device", nic+",romfile="+nicIndex)
		if cfg.Boot == BootNetworkThenDisk {
			args = append(args, "-fw_cfg", "name=opt/org.tianocore/IPv6Support,string=no")
		}
	default:
		return nil, fmt.Errorf("%w: unknown firmware %d", ErrConfig, cfg.Firmware)
	}
	if cfg.Disk != "" {
		args = append(args,
			"-drive", "file="+cfg.Disk+",format=raw,if=none,id=disk0",
			"-device", "virtio-blk-pci,drive=disk0"+diskIndex)
	}
	if cfg.NoReboot {
		args = append(args, "-no-reboot")
	}
	return append(args, cfg.Extra...), nil
}

// checkDisk rejects a boot order without a disk and disk paths QEMU's
// option parser would split.
func checkDisk(cfg Config) error {
	switch {
	case cfg.Boot < BootNetwork || cfg.Boot > BootDiskThenNetwork:
		return fmt.Errorf("%w: unknown boot order %d", ErrConfig, cfg.Boot)
	case cfg.Boot != BootNetwork && cfg.Disk == "":
		return fmt.Errorf("%w: boot order %s needs a Disk", ErrConfig, cfg.Boot)
	case strings.ContainsAny(cfg.Disk, ",\n"):
		return fmt.Errorf("%w: the Disk path may not hold commas or newlines", ErrConfig)
	}
	return nil
}

// bootIndexes are the NIC's and the disk's bootindex options for b.
func bootIndexes(b BootOrder) (nic, disk string) {
	switch b {
	case BootDisk:
		return "", ",bootindex=1"
	case BootNetworkThenDisk:
		return ",bootindex=1", ",bootindex=2"
	case BootDiskThenNetwork:
		return ",bootindex=2", ",bootindex=1"
	}
	return "", ""
}

func withDefaults(cfg Config) Config {
	if cfg.MemoryMB == 0 {
		cfg.MemoryMB = DefaultMemoryMB
	}
	if cfg.Binary == "" {
		cfg.Binary = DefaultBinary
	}
	if cfg.OVMFCode == "" {
		cfg.OVMFCode = DefaultOVMFCode
	}
	if cfg.OVMFVars == "" {
		cfg.OVMFVars = DefaultOVMFVars
	}
	return cfg
}

// Start boots a VM. With a non-nil ns, QEMU runs through ns.Command (inside
// a network namespace). The VM runs until it powers off, Stop is called, or
// ctx ends.
func Start(ctx context.Context, ns Commander, cfg Config) (*VM, error) {
	args, err := Args(cfg)
	if err != nil {
		return nil, err
	}
	cfg = withDefaults(cfg)
	if cfg.Firmware == UEFI {
		if err := copyFile(cfg.OVMFVars, filepath.Join(cfg.Dir, "OVMF_VARS.fd")); err != nil {
			return nil, err
		}
	}
	vm := &VM{
		cfg:         cfg,
		ConsolePath: filepath.Join(cfg.Dir, "console.log"),
		QMPPath:     filepath.Join(cfg.Dir, "qmp.sock"),
		stderr:      &lockedBuffer{},
		done:        make(chan struct{}),
	}
	if ns != nil {
		vm.cmd = ns.Command(ctx, cfg.Binary, args...)
	} else {
		vm.cmd = exec.CommandContext(ctx, cfg.Binary, args...)
	}
	vm.cmd.Stdout, vm.cmd.Stderr = vm.stderr, vm.stderr
	if vm.cmd.SysProcAttr == nil {
		// QEMU dies with the test process, even when that is killed.
		vm.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	}
	vm.cmd.WaitDelay = 10 * time.Second
	if err := vm.cmd.Start(); err != nil {
		return nil, fmt.Errorf("qemu: start: %w", err)
	}
	go func() {
		vm.waitErr = vm.cmd.Wait()
		close(vm.done)
	}()
	return vm, nil
}

// Done is closed when the QEMU process has exited.
func (vm *VM) Done() <-chan struct{} { return vm.done }

// Wait waits for QEMU to exit (the guest powered off) or ctx to end.
func (vm *VM) Wait(ctx context.Context) error {
	select {
	case <-vm.done:
		return vm.exitErr()
	case <-ctx.Done():
		return fmt.Errorf("qemu: waiting for the VM to exit: %w", ctx.Err())
	}
}

func (vm *VM) exitErr() error {
	if vm.waitErr != nil {
		return fmt.Errorf("qemu: %w: %s", vm.waitErr, strings.TrimSpace(vm.stderr.String()))
	}
	return nil
}

// Stop ends the VM: SIGTERM, then SIGKILL if QEMU is still there after a
// few seconds. Stopping a VM that already exited is a no-op.
func (vm *VM) Stop() error {
	select {
	case <-vm.done:
		return nil
	default:
	}
	vm.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-vm.done:
		return nil
	case <-time.After(5 * time.Second):
	}
	vm.cmd.Process.Kill()
	<-vm.done
	return nil
}

// Stderr is what QEMU itself printed (errors about taps, firmware, ...).
func (vm *VM) Stderr() string { return vm.stderr.String() }

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("qemu: %w", err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("qemu: %w", err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("qemu: %w", err)
	}
	return out.Close()
}

// lockedBuffer collects QEMU's output from the exec goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	return len(p), nil
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
