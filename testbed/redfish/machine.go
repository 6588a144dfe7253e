package redfish

import (
	"context"
	"errors"
)

// Errors returned by this package.
var (
	ErrBadRequest = errors.New("redfish emulator: bad request")
	ErrNotFound   = errors.New("redfish emulator: no such resource")
	ErrMedia      = errors.New("redfish emulator: virtual media")
	ErrMachine    = errors.New("redfish emulator: machine")
)

// Boot override targets the emulator offers (BootSourceOverrideTarget).
const (
	TargetNone = "None"
	TargetPxe  = "Pxe"
	TargetCd   = "Cd"
	TargetHdd  = "Hdd"
)

// Boot override enablement (BootSourceOverrideEnabled).
const (
	EnabledDisabled   = "Disabled"
	EnabledOnce       = "Once"
	EnabledContinuous = "Continuous"
)

// Boot modes (BootSourceOverrideMode).
const (
	ModeUEFI   = "UEFI"
	ModeLegacy = "Legacy"
)

// Reset types the emulator accepts.
var resetTypes = []string{"On", "ForceOff", "GracefulShutdown", "ForceRestart", "PowerCycle"}

// StartOptions is how a Machine is powered on.
type StartOptions struct {
	// Boot is the device to boot first: TargetPxe, TargetCd, TargetHdd, or
	// "" for the machine's own order.
	Boot string
	// Once: Boot holds for this boot only; a reset of the running machine
	// (the guest rebooting) boots in the machine's own order again.
	Once bool
	// CD is the file in the virtual CD drive, "" for an empty drive.
	CD string
}

// Machine is what a System powers and boots. Implementations need not be
// safe for concurrent use: the service serialises calls per System.
type Machine interface {
	// Running reports whether the machine is powered on.
	Running(ctx context.Context) bool
	// Start powers the machine on, booting as opts says.
	Start(ctx context.Context, opts StartOptions) error
	// Stop cuts the power at once.
	Stop(ctx context.Context) error
	// Shutdown presses the power button (ACPI); the guest decides.
	Shutdown(ctx context.Context) error
	// Reset presses the reset button (a warm reboot, same boot order).
	Reset(ctx context.Context) error
	// ChangeMedium puts the file path in the running machine's CD drive,
	// or empties the drive when path is "".
	ChangeMedium(ctx context.Context, path string) error
}

// System describes one machine behind the service.
type System struct {
	ID      string // path segment, e.g. "vm1"
	Name    string
	UUID    string
	MAC     string // the NIC's MAC, lower case with colons
	UEFI    bool   // firmware; decides the only accepted BootSourceOverrideMode
	Machine Machine
}

func (s System) mode() string {
	if s.UEFI {
		return ModeUEFI
	}
	return ModeLegacy
}

// BootOverride is a System's Boot override as the service holds it.
type BootOverride struct {
	Target  string
	Enabled string
}

// pending is the device the next power-on boots from, or "".
func (b BootOverride) pending() string {
	if b.Enabled == EnabledDisabled || b.Target == TargetNone || b.Target == "" {
		return ""
	}
	return b.Target
}

// Media is a System's virtual CD slot.
type Media struct {
	Image    string // the URL it was inserted from
	Inserted bool
	path     string // the downloaded file
}
