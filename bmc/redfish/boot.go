package redfish

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/rackboot/rackboot/bmc"
)

// SetBootOnce makes the next boot, once, dev in mode. The virtual CD is
// booted the vendor's way where it has one (iDRAC); otherwise the system's
// Boot override is PATCHed, with BootSourceOverrideMode when a mode is
// given, and with the UEFI spelling of the target (UefiPxe, UefiCd, …)
// where the BMC lists it and the boot is UEFI. A BMC that refuses the mode
// with 400 (Supermicro with UEFI) is asked again without it.
func (d *Driver) SetBootOnce(ctx context.Context, dev bmc.BootDevice, mode bmc.BootMode) error {
	const op = "set boot device"
	if !validDevice(dev) || !validMode(mode) {
		return d.failf(op, bmc.ErrUnsupported, "unknown boot device %q or mode %q", dev, mode)
	}
	api, path, err := d.client(ctx, op)
	if err != nil {
		return err
	}
	sys, err := d.getSystem(api, op, path)
	if err != nil {
		return err
	}
	if v := d.vendorFor(sys); dev == bmc.BootCd && v.bootCD != nil {
		err := v.bootCD(d, ctx, api, op, sys)
		if !errors.Is(err, errNoOEM) {
			return err
		}
	}
	target := bootTarget(dev, mode, sys)
	if !allows(sys.Boot.Targets, target) {
		return d.failf(op, bmc.ErrUnsupported, "boot target %s not offered (allowed: %v)", target, sys.Boot.Targets)
	}
	err = d.send(api, op, http.MethodPatch, path, bootPatch(target, mode))
	if err != nil && mode != bmc.BootModeUnchanged && rejected(err) {
		d.opts.Logger.Debug("boot override refused with a mode, retrying without it",
			"host", d.addr.Host, "mode", string(mode))
		err = d.send(api, op, http.MethodPatch, path, bootPatch(target, bmc.BootModeUnchanged))
	}
	return err
}

// bootTarget is dev as the BMC spells it: UefiPxe, UefiCd, UefiHdd or
// UefiUsb where the allowable values list that name and the boot is UEFI
// (asked for, or the BMC's current mode when none is asked for).
func bootTarget(dev bmc.BootDevice, mode bmc.BootMode, sys *systemDoc) string {
	uefi := mode == bmc.BootModeUEFI || (mode == bmc.BootModeUnchanged && sys.Boot.Mode == "UEFI")
	if !uefi || strings.HasPrefix(string(dev), "Uefi") {
		return string(dev)
	}
	if name := "Uefi" + string(dev); slices.Contains(sys.Boot.Targets, name) {
		return name
	}
	return string(dev)
}

func bootPatch(target string, mode bmc.BootMode) map[string]any {
	boot := map[string]any{
		"BootSourceOverrideEnabled": "Once",
		"BootSourceOverrideTarget":  target,
	}
	if mode != bmc.BootModeUnchanged {
		boot["BootSourceOverrideMode"] = string(mode)
	}
	return map[string]any{"Boot": boot}
}

func validDevice(dev bmc.BootDevice) bool {
	switch dev {
	case bmc.BootPxe, bmc.BootCd, bmc.BootHdd, bmc.BootBiosSetup, bmc.BootUefiHTTP:
		return true
	}
	return false
}

func validMode(m bmc.BootMode) bool {
	return m == bmc.BootModeUnchanged || m == bmc.BootModeUEFI || m == bmc.BootModeLegacy
}

// rejected reports whether the BMC refused the request's shape (400 or
// 422), which is when an alternative shape is worth trying.
func rejected(err error) bool {
	var s interface{ StatusCode() int }
	return errors.As(err, &s) && (s.StatusCode() == 400 || s.StatusCode() == 422)
}
