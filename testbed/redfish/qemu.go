package redfish

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/rackboot/rackboot/testbed/qemu"
)

// QEMUMachine is a Machine that is a testbed QEMU VM: every power-on starts
// a fresh QEMU process with the boot order asked for, an IDE CD drive
// (cd0) and, if Disk is set, a virtio disk.
type QEMUMachine struct {
	cfg  qemu.Config
	disk string
	ns   qemu.Commander

	mu sync.Mutex
	vm *qemu.VM
}

// NewQEMU returns a machine for cfg (see qemu.Config; its Extra is kept
// and the emulator's drives appended). disk is a raw or qcow2 image, or "".
// With a non-nil ns, QEMU runs in that network namespace.
func NewQEMU(ns qemu.Commander, cfg qemu.Config, disk string) (*QEMUMachine, error) {
	if _, err := qemu.Args(cfg); err != nil {
		return nil, err
	}
	if strings.Contains(cfg.Dir+disk, ",") {
		return nil, fmt.Errorf("%w: VM directory and disk may not hold commas", qemu.ErrConfig)
	}
	return &QEMUMachine{cfg: cfg, disk: disk, ns: ns}, nil
}

// VM is the current QEMU process (nil before the first power-on); tests
// read its console.
func (m *QEMUMachine) VM() *qemu.VM {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.vm
}

// Args is the extra QEMU arguments of a power-on with opts.
func (m *QEMUMachine) Args(opts StartOptions) []string {
	uefi := m.cfg.Firmware == qemu.UEFI
	cd := "if=none,id=cd0,media=cdrom,readonly=on"
	if opts.CD != "" {
		cd += ",format=raw,file=" + opts.CD
	}
	cdDev, diskDev := "ide-cd,drive=cd0,id=cd0dev", "virtio-blk-pci,drive=hd0,id=hd0dev"
	var args []string
	if uefi {
		// OVMF follows bootindex; the NIC has bootindex=1.
		cdIdx, diskIdx := "3", "2"
		switch opts.Boot {
		case TargetCd:
			cdIdx = "0"
		case TargetHdd:
			diskIdx = "0"
		}
		cdDev += ",bootindex=" + cdIdx
		diskDev += ",bootindex=" + diskIdx
	} else {
		// SeaBIOS: the NIC is first (-boot n); -boot once= changes the
		// first boot only, order= (merged with -boot n, last wins) all.
		key := "order="
		if opts.Once {
			key = "once="
		}
		switch opts.Boot {
		case TargetCd:
			args = append(args, "-boot", key+"d")
		case TargetHdd:
			args = append(args, "-boot", key+"c")
		}
	}
	args = append(args, "-drive", cd, "-device", cdDev)
	if m.disk != "" {
		format := "raw"
		if strings.HasSuffix(m.disk, ".qcow2") {
			format = "qcow2"
		}
		args = append(args, "-drive", "if=none,id=hd0,format="+format+",file="+m.disk, "-device", diskDev)
	}
	return args
}

// Running reports whether QEMU runs.
func (m *QEMUMachine) Running(context.Context) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.running()
}

func (m *QEMUMachine) running() bool {
	if m.vm == nil {
		return false
	}
	select {
	case <-m.vm.Done():
		return false
	default:
		return true
	}
}

// Start starts QEMU. ctx bounds the VM's life: pass one that outlives the
// request (the service does).
func (m *QEMUMachine) Start(ctx context.Context, opts StartOptions) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.running() {
		return nil
	}
	cfg := m.cfg
	cfg.Extra = append(append([]string(nil), cfg.Extra...), m.Args(opts)...)
	vm, err := qemu.Start(ctx, m.ns, cfg)
	if err != nil {
		return err
	}
	m.vm = vm
	if err := waitQMP(ctx, vm); err != nil {
		return err
	}
	if opts.Once && m.cfg.Firmware == qemu.UEFI && opts.Boot != TargetPxe && opts.Boot != "" {
		return m.restoreBootOrder(ctx, opts.Boot)
	}
	return nil
}

// restoreBootOrder puts the device a Once override moved to bootindex 0
// back in its place. QEMU rebuilds the firmware's boot order (fw_cfg
// "bootorder") only at a reset, so this boot keeps the override and the
// next reset, the guest's own reboot included, does not.
func (m *QEMUMachine) restoreBootOrder(ctx context.Context, boot string) error {
	dev, idx := "cd0dev", 3
	if boot == TargetHdd {
		if m.disk == "" {
			return nil
		}
		dev, idx = "hd0dev", 2
	}
	_, err := m.vm.QMP(ctx, "qom-set", map[string]any{
		"path": "/machine/peripheral/" + dev, "property": "bootindex", "value": idx,
	})
	if err != nil {
		return fmt.Errorf("%w: restoring the boot order after a one-time override: %w", ErrMachine, err)
	}
	return nil
}

// waitQMP waits until QEMU answers on QMP, so that a VM that cannot start
// (a missing tap, a bad image) is an error of the power-on and not a
// machine that silently stays off.
func waitQMP(ctx context.Context, vm *qemu.VM) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := vm.Status(ctx); err == nil {
			return nil
		}
		select {
		case <-vm.Done():
			return fmt.Errorf("%w: QEMU exited at start: %s", ErrMachine, strings.TrimSpace(vm.Stderr()))
		case <-ctx.Done():
			vm.Stop()
			return fmt.Errorf("%w: QEMU did not answer on QMP: %w", ErrMachine, ctx.Err())
		case <-tick.C:
		}
	}
}

// startTimeout bounds how long a power-on waits for QEMU's QMP socket.
const startTimeout = 20 * time.Second

// Stop ends QEMU through QMP quit, or by signal if QMP does not answer.
func (m *QEMUMachine) Stop(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.running() {
		return nil
	}
	if err := m.vm.Quit(ctx); err != nil {
		return m.vm.Stop()
	}
	return m.vm.Wait(ctx)
}

// Shutdown sends an ACPI power button press (QMP system_powerdown).
func (m *QEMUMachine) Shutdown(ctx context.Context) error {
	return m.qmp(ctx, "system_powerdown", nil)
}

// Reset presses the reset button (QMP system_reset).
func (m *QEMUMachine) Reset(ctx context.Context) error {
	return m.qmp(ctx, "system_reset", nil)
}

// ChangeMedium loads path into the CD drive (QMP blockdev-change-medium),
// or ejects the medium when path is "" (QMP eject).
func (m *QEMUMachine) ChangeMedium(ctx context.Context, path string) error {
	if path == "" {
		return m.qmp(ctx, "eject", map[string]any{"id": "cd0dev", "force": true})
	}
	return m.qmp(ctx, "blockdev-change-medium", map[string]any{
		"id": "cd0dev", "filename": path, "format": "raw", "read-only-mode": "read-only",
	})
}

func (m *QEMUMachine) qmp(ctx context.Context, cmd string, args any) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.running() {
		return fmt.Errorf("%w: %s: the VM is off", ErrMachine, cmd)
	}
	_, err := m.vm.QMP(ctx, cmd, args)
	if errors.Is(err, io.EOF) && cmd == "system_powerdown" {
		return nil
	}
	return err
}

// Close powers the VM off.
func (m *QEMUMachine) Close() error {
	m.mu.Lock()
	vm := m.vm
	m.mu.Unlock()
	if vm == nil {
		return nil
	}
	return vm.Stop()
}
