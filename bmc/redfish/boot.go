package redfish

import (
	"context"
	"errors"
	"net/http"

	"github.com/rackboot/rackboot/bmc"
)

// SetBootOnce PATCHes the system's Boot override to dev, once, in mode.
// A BMC that refuses the mode with 400 (Supermicro with UEFI) is asked
// again without it.
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
	if !allows(sys.Boot.Targets, string(dev)) {
		return d.failf(op, bmc.ErrUnsupported, "boot target %s not offered (allowed: %v)", dev, sys.Boot.Targets)
	}
	err = d.send(api, op, http.MethodPatch, path, bootPatch(dev, mode))
	if err != nil && mode != bmc.BootModeUnchanged && rejected(err) {
		d.opts.Logger.Debug("boot override refused with a mode, retrying without it",
			"host", d.addr.Host, "mode", string(mode))
		err = d.send(api, op, http.MethodPatch, path, bootPatch(dev, bmc.BootModeUnchanged))
	}
	return err
}

func bootPatch(dev bmc.BootDevice, mode bmc.BootMode) map[string]any {
	boot := map[string]any{
		"BootSourceOverrideEnabled": "Once",
		"BootSourceOverrideTarget":  string(dev),
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
