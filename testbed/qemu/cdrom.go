package qemu

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
)

// ErrNoOVMF: the OVMF firmware files are not installed.
var ErrNoOVMF = fmt.Errorf("qemu: OVMF not installed")

// BootCD runs a TCG VM with memMiB of memory from the ISO image cdrom (a
// CD-ROM: SeaBIOS -cdrom, or under OVMF an AHCI CD drive as the first
// boot device) with no network but a restricted user-mode NIC, until the
// guest powers off or ctx ends, and returns its serial console. dir holds
// the console log and OVMF's variables. Without OVMF's files, UEFI gives
// ErrNoOVMF.
func BootCD(ctx context.Context, dir, cdrom string, fw Firmware, memMiB int) (string, error) {
	log := filepath.Join(dir, "console.log")
	args := []string{"-accel", "tcg", "-m", strconv.Itoa(memMiB), "-nographic", "-monitor", "none", "-parallel", "none",
		"-serial", "file:" + log, "-no-reboot", "-nic", "user,model=virtio-net-pci,restrict=on"}
	if fw == UEFI {
		vars := filepath.Join(dir, "OVMF_VARS.fd")
		data, err := os.ReadFile(DefaultOVMFVars)
		if err != nil {
			return "", fmt.Errorf("%w: %w", ErrNoOVMF, err)
		}
		if err := os.WriteFile(vars, data, 0o644); err != nil {
			return "", err
		}
		args = append(args, "-machine", "q35",
			"-drive", "if=pflash,format=raw,readonly=on,file="+DefaultOVMFCode,
			"-drive", "if=pflash,format=raw,file="+vars,
			"-drive", "media=cdrom,if=none,id=cd,readonly=on,format=raw,file="+cdrom,
			"-device", "ide-cd,drive=cd,bootindex=0")
	} else {
		args = append(args, "-cdrom", cdrom, "-boot", "d")
	}
	out, err := exec.CommandContext(ctx, DefaultBinary, args...).CombinedOutput()
	console := ReadConsole(log)
	if err != nil {
		return console, fmt.Errorf("qemu: %w\n%s", err, out)
	}
	return console, nil
}
