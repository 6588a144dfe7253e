package redfish

import (
	"context"
	"net/http"

	"github.com/rackboot/rackboot/bmc"
)

// PowerState reads the machine's power state.
func (d *Driver) PowerState(ctx context.Context) (bmc.PowerState, error) {
	const op = "power status"
	api, path, err := d.client(ctx, op)
	if err != nil {
		return "", err
	}
	sys, err := d.getSystem(api, op, path)
	if err != nil {
		return "", err
	}
	return powerState(sys.PowerState), nil
}

// PowerOn sends ResetType On unless the machine is already on.
func (d *Driver) PowerOn(ctx context.Context) error {
	return d.power(ctx, "power on", bmc.PowerOn, "On")
}

// PowerOff sends ResetType ForceOff unless the machine is already off.
func (d *Driver) PowerOff(ctx context.Context) error {
	return d.power(ctx, "power off", bmc.PowerOff, "ForceOff")
}

// GracefulOff sends ResetType GracefulShutdown unless the machine is off;
// where the BMC does not offer GracefulShutdown but PushPowerButton (iLO
// 5), a push of the power button, which the OS takes as an ACPI shutdown.
func (d *Driver) GracefulOff(ctx context.Context) error {
	return d.power(ctx, "graceful power off", bmc.PowerOff, "GracefulShutdown")
}

// Reset sends ForceRestart (PowerCycle where ForceRestart is not offered),
// or On if the machine is off.
func (d *Driver) Reset(ctx context.Context) error {
	return d.power(ctx, "reset", "", "ForceRestart")
}

// power reads the system and posts resetType to its Reset action, unless
// the machine already is in state done.
func (d *Driver) power(ctx context.Context, op string, done bmc.PowerState, resetType string) error {
	api, path, err := d.client(ctx, op)
	if err != nil {
		return err
	}
	sys, err := d.getSystem(api, op, path)
	if err != nil {
		return err
	}
	state := powerState(sys.PowerState)
	if done != "" && state == done {
		return nil
	}
	reset := sys.Actions.Reset
	if !validLink(reset.Target) {
		return d.failf(op, bmc.ErrUnsupported, "the system has no Reset action")
	}
	switch resetType {
	case "ForceRestart":
		resetType = restartType(state, reset.Allowed)
	case "GracefulShutdown":
		if !allows(reset.Allowed, resetType) && allows(reset.Allowed, "PushPowerButton") {
			resetType = "PushPowerButton"
		}
	}
	if !allows(reset.Allowed, resetType) {
		return d.failf(op, bmc.ErrUnsupported, "ResetType %s not offered (allowed: %v)", resetType, reset.Allowed)
	}
	return d.send(api, op, http.MethodPost, reset.Target, map[string]string{"ResetType": resetType})
}

func restartType(state bmc.PowerState, allowed []string) string {
	switch {
	case state == bmc.PowerOff:
		return "On"
	case !allows(allowed, "ForceRestart") && allows(allowed, "PowerCycle"):
		return "PowerCycle"
	}
	return "ForceRestart"
}
