package bmc

import (
	"context"
	"log/slog"
	"time"
)

// Driver drives one machine through its BMC. Implementations are safe for
// concurrent use; every method honours ctx's deadline and cancellation.
type Driver interface {
	// PowerState reports the machine's power state.
	PowerState(ctx context.Context) (PowerState, error)
	// PowerOn turns the machine on; it is a no-op if it is already on.
	PowerOn(ctx context.Context) error
	// PowerOff cuts power at once; it is a no-op if the machine is off.
	PowerOff(ctx context.Context) error
	// GracefulOff asks the operating system to shut down (ACPI); it is a
	// no-op if the machine is off. It returns once the BMC accepted the
	// request, not when the machine is off.
	GracefulOff(ctx context.Context) error
	// Reset restarts the machine at once (powering it on if it was off).
	Reset(ctx context.Context) error
	// SetBootOnce makes the next boot, and only the next, use dev. An empty
	// mode leaves the BMC's boot mode as it is.
	SetBootOnce(ctx context.Context, dev BootDevice, mode BootMode) error
	// InsertMedia mounts the image at url (http or https) in the virtual CD
	// drive, replacing whatever was there.
	InsertMedia(ctx context.Context, url string) error
	// EjectMedia empties the virtual CD drive; it is a no-op if it is empty.
	EjectMedia(ctx context.Context) error
	// Inventory reads the machine's identity, CPUs, memory and NICs.
	Inventory(ctx context.Context) (Inventory, error)
}

// PowerState is a machine's power state as the BMC reports it.
type PowerState string

// Power states (Redfish's names).
const (
	PowerOn          PowerState = "On"
	PowerOff         PowerState = "Off"
	PowerPoweringOn  PowerState = "PoweringOn"
	PowerPoweringOff PowerState = "PoweringOff"
	PowerUnknown     PowerState = "Unknown"
)

// BootDevice is a one-time boot target (Redfish BootSourceOverrideTarget).
type BootDevice string

// Boot devices.
const (
	BootPxe       BootDevice = "Pxe"
	BootCd        BootDevice = "Cd"
	BootHdd       BootDevice = "Hdd"
	BootBiosSetup BootDevice = "BiosSetup"
	// BootUefiHTTP is UEFI HTTP boot (redfish-uefihttp://).
	BootUefiHTTP BootDevice = "UefiHttp"
)

// BootMode is the firmware mode of a one-time boot (Redfish
// BootSourceOverrideMode). The empty mode leaves it unchanged.
type BootMode string

// Boot modes.
const (
	BootModeUnchanged BootMode = ""
	BootModeUEFI      BootMode = "UEFI"
	BootModeLegacy    BootMode = "Legacy"
)

// Credentials are how rackboot logs in to one BMC, and how it connects.
// Password never appears in logs or error text (String and LogValue hide it).
type Credentials struct {
	Username string
	Password string
	// InsecureSkipVerify turns TLS certificate verification off for this BMC
	// (most ship self-signed certificates). Off unless the operator says so.
	InsecureSkipVerify bool
}

// String hides the password.
func (c Credentials) String() string {
	return "user=" + c.Username + " password=[redacted]"
}

// GoString hides the password from %#v.
func (c Credentials) GoString() string { return c.String() }

// LogValue hides the password from log/slog.
func (c Credentials) LogValue() slog.Value {
	return slog.GroupValue(slog.String("user", c.Username),
		slog.Bool("insecure", c.InsecureSkipVerify))
}

// Options tune a driver; the zero value means the defaults below.
type Options struct {
	// RequestTimeout bounds one HTTP request (default 30s).
	RequestTimeout time.Duration
	// Attempts is how many times a transient failure (unreachable, HTTP 5xx
	// other than 501) is tried in all (default 3). Bad credentials and
	// unsupported operations are never retried.
	Attempts int
	// Backoff is the wait before the first retry, doubled for each further
	// one (default 1s).
	Backoff time.Duration
	// MediaTimeout bounds how long an accepted InsertMedia (or a vendor's
	// boot job) may take to show in the BMC before it is an error (default
	// 2m): BMCs answer 2xx and update the slot a little later.
	MediaTimeout time.Duration
	// PollInterval is the wait between two reads of a slot or job that is
	// not done yet (default 2s).
	PollInterval time.Duration
	// Logger receives debug records of retries (nil: discard). Records
	// carry the "host" attribute and never credentials.
	Logger *slog.Logger
}

// Defaults returns o with zero fields replaced by the defaults.
func (o Options) Defaults() Options {
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = 30 * time.Second
	}
	if o.Attempts <= 0 {
		o.Attempts = 3
	}
	if o.Backoff <= 0 {
		o.Backoff = time.Second
	}
	if o.MediaTimeout <= 0 {
		o.MediaTimeout = 2 * time.Minute
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 2 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Inventory is what a BMC says about its machine.
type Inventory struct {
	Manufacturer string     `json:"manufacturer,omitempty"`
	Model        string     `json:"model,omitempty"`
	SerialNumber string     `json:"serialNumber,omitempty"`
	UUID         string     `json:"uuid,omitempty"`
	PowerState   PowerState `json:"powerState,omitempty"`
	CPU          CPU        `json:"cpu"`
	MemoryGiB    float64    `json:"memoryGiB"`
	NICs         []NIC      `json:"nics"`
}

// CPU summarises the machine's processors.
type CPU struct {
	Count   int    `json:"count"`
	Model   string `json:"model,omitempty"`
	Cores   int    `json:"cores,omitempty"`
	Threads int    `json:"threads,omitempty"`
}

// NIC is one network interface of the machine (not of the BMC).
type NIC struct {
	ID string `json:"id"`
	// MAC is lower case, colon separated.
	MAC       string `json:"mac"`
	SpeedMbps int    `json:"speedMbps,omitempty"`
	LinkUp    bool   `json:"linkUp,omitempty"`
}
