package main

import (
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strings"

	"github.com/rackboot/rackboot/testbed/qemu"
	"github.com/rackboot/rackboot/testbed/redfish"
)

// errSpec is a malformed -vm value.
var errSpec = errors.New("bad -vm value")

// vmSpec is one -vm flag: id=,mac=,tap=,firmware=bios|uefi,disk=,memory=.
type vmSpec struct {
	ID, MAC, Tap, Disk string
	Firmware           qemu.Firmware
	MemoryMB           int
}

// parseVM parses a -vm value.
func parseVM(s string) (vmSpec, error) {
	var v vmSpec
	for kv := range strings.SplitSeq(s, ",") {
		k, val, ok := strings.Cut(kv, "=")
		if !ok || val == "" {
			return v, fmt.Errorf("%w: %q is not key=value", errSpec, kv)
		}
		switch k {
		case "id":
			if strings.Trim(val, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") != "" {
				return v, fmt.Errorf("%w: id %q (letters, digits, - and _)", errSpec, val)
			}
			v.ID = val
		case "mac":
			mac, err := net.ParseMAC(val)
			if err != nil || len(mac) != 6 {
				return v, fmt.Errorf("%w: mac %q", errSpec, val)
			}
			v.MAC = mac.String()
		case "tap":
			v.Tap = val
		case "disk":
			v.Disk = val
		case "firmware":
			switch val {
			case "bios":
				v.Firmware = qemu.BIOS
			case "uefi":
				v.Firmware = qemu.UEFI
			default:
				return v, fmt.Errorf("%w: firmware %q (bios or uefi)", errSpec, val)
			}
		case "memory":
			if _, err := fmt.Sscan(val, &v.MemoryMB); err != nil || v.MemoryMB < 64 {
				return v, fmt.Errorf("%w: memory %q (MiB, at least 64)", errSpec, val)
			}
		default:
			return v, fmt.Errorf("%w: unknown key %q (id, mac, tap, firmware, disk, memory)", errSpec, k)
		}
	}
	if v.ID == "" || v.MAC == "" || v.Tap == "" {
		return v, fmt.Errorf("%w: id, mac and tap are required", errSpec)
	}
	return v, nil
}

// system makes the emulator's System for v, its VM files under dir/<id>.
func (v vmSpec) system(dir string) (redfish.System, *redfish.QEMUMachine, error) {
	m, err := redfish.NewQEMU(nil, qemu.Config{
		Firmware: v.Firmware, MAC: v.MAC, Tap: v.Tap, Dir: filepath.Join(dir, v.ID), MemoryMB: v.MemoryMB,
	}, v.Disk)
	if err != nil {
		return redfish.System{}, nil, fmt.Errorf("vm %s: %w", v.ID, err)
	}
	return redfish.System{
		ID: v.ID, Name: v.ID, MAC: v.MAC, UEFI: v.Firmware == qemu.UEFI, Machine: m,
		UUID: uuidFromMAC(v.MAC),
	}, m, nil
}

// uuidFromMAC gives each VM a stable UUID.
func uuidFromMAC(mac string) string {
	hw, _ := net.ParseMAC(mac)
	return fmt.Sprintf("7261636b-626f-4f74-8000-%012x", []byte(hw))
}
