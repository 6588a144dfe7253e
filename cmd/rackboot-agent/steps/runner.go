package steps

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/rackboot/rackboot/cmd/rackboot-agent/inventory"
	"github.com/rackboot/rackboot/engine/models"
)

// Sentinel errors of the step executors.
var (
	// ErrArgs: the step's arguments are missing or malformed.
	ErrArgs = errors.New("steps: bad arguments")
	// ErrUnsupported: this agent does not implement the step type.
	ErrUnsupported = errors.New("steps: step type not supported")
	// ErrTimeout: the step did not finish within its timeout.
	ErrTimeout = errors.New("steps: timed out")
	// ErrUnsynchronised: an NTP server answered that it has no good time.
	ErrUnsynchronised = errors.New("steps: ntp server unsynchronised")
	// ErrParse: malformed kernel table or network answer.
	ErrParse = errors.New("steps: malformed input")
)

// Exit codes of replies for steps that did not succeed.
const (
	ExitFailed      = 1   // the step ran and failed
	ExitTimeout     = 124 // the step overran its timeout (as timeout(1))
	ExitUnsupported = -1  // the step type is unknown to this agent
)

// Executor runs one step type with the step's args and returns its output
// (a JSON document) or an error.
type Executor func(ctx context.Context, args []string) (string, error)

// Deps are the parts of the host the built-in executors use. Zero fields
// mean the real machine.
type Deps struct {
	// Inventory collects the inventory; nil means inventory.Collect.
	Inventory func(ctx context.Context) (*models.Inventory, error)
	// Log receives the inventory's unreadable parts; nil means slog.Default().
	Log *slog.Logger
	// Resolver resolves names; nil means net.DefaultResolver.
	Resolver *net.Resolver
	// ARPTable is the path of the kernel's ARP table; "" means
	// /proc/thread-self/net/arp (the calling thread's namespace).
	ARPTable string
	// Appliance reports the appliance's clock as seen by the agent: a
	// name, the local clock's offset from it, and whether it was measured.
	Appliance func() (name string, offset time.Duration, ok bool)
	// MaxClockOffset is the largest clock offset called synced; 0 means
	// DefaultMaxClockOffset.
	MaxClockOffset time.Duration
	// PingRounds and PingWait shape the connectivity check's ICMP probes:
	// rounds of one echo per address, each waiting PingWait for replies.
	// Zero means 3 rounds of 1 s.
	PingRounds int
	PingWait   time.Duration
	// NTPWait bounds one SNTP query; 0 means 3 s.
	NTPWait time.Duration
	// DNSWait bounds the resolution of one name; 0 means 5 s.
	DNSWait time.Duration
	// Install is the service side of the install step (*protocol.Client);
	// nil: the install step fails saying the agent cannot run it.
	Install InstallService
	// ImageHTTP streams disk images; nil means DefaultImageClient().
	ImageHTTP *http.Client
	// InstallRetryWait is the first wait between install retries
	// (doubling); 0 means 1 s.
	InstallRetryWait time.Duration
	// ImageStallTimeout aborts (and resumes) a disk image download that
	// received nothing for that long; 0 means a minute.
	ImageStallTimeout time.Duration
	// CoreOSInstaller is the coreos-installer the install step runs
	// (install_coreos.go); "" looks for it on PATH, "none" never runs it.
	CoreOSInstaller string
	// XZ is the xz binary that decompresses .raw.xz images; "" looks for
	// it on PATH, "none" (or none found) uses the pure-Go decoder.
	XZ string
	// NetworkDir holds the live system's NetworkManager keyfiles; ""
	// means DefaultNetworkDir. Keyfiles there add --copy-network.
	NetworkDir string
	// DiskSpeedBytes is how much installation-disk-speed-check writes; 0
	// means DiskSpeedBytes (upstream's 22 MiB).
	DiskSpeedBytes int64
	// OsmetDir is where the live media's image (coreos-installer's osmet
	// files) is; "" means DefaultOsmetDir. An *.osmet there makes
	// coreos-installer install offline.
	OsmetDir string
}

// DefaultTimeout bounds any step without its own timeout.
const DefaultTimeout = 2 * time.Minute

// Runner maps step types to executors and runs steps under timeouts.
type Runner struct {
	Executors map[models.StepType]Executor
	// Timeouts per step type; a missing entry means DefaultTimeout.
	Timeouts map[models.StepType]time.Duration
}

// NewRunner returns a runner with the built-in executors over d.
func NewRunner(d Deps) *Runner {
	return &Runner{
		Executors: map[models.StepType]Executor{
			models.StepTypeInventory:         d.inventory,
			models.StepTypeConnectivityCheck: d.connectivity,
			models.StepTypeNtpSynchronizer:   d.ntp,
			models.StepTypeDomainResolution:  d.domains,
			models.StepTypeInstall:           d.install,

			models.StepTypeInstallationDiskSpeedCheck: d.diskSpeed,
		},
		Timeouts: map[models.StepType]time.Duration{
			models.StepTypeInventory:         time.Minute,
			models.StepTypeConnectivityCheck: time.Minute,
			models.StepTypeNtpSynchronizer:   30 * time.Second,
			models.StepTypeDomainResolution:  30 * time.Second,
			models.StepTypeInstall:           InstallTimeout,

			models.StepTypeInstallationDiskSpeedCheck: DiskSpeedTimeout,
		},
	}
}

// Run runs one step and returns the reply to send. It never blocks past
// the step's timeout, even when an executor ignores its context.
func (r *Runner) Run(ctx context.Context, step *models.Step) *models.StepReply {
	reply := &models.StepReply{StepID: step.StepID, StepType: step.StepType}
	exec, ok := r.Executors[step.StepType]
	if !ok {
		reply.ExitCode = ExitUnsupported
		reply.Error = fmt.Sprintf("%v: rackboot-agent cannot run step type %q", ErrUnsupported, step.StepType)
		return reply
	}
	timeout, ok := r.Timeouts[step.StepType]
	if !ok || timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	type result struct {
		out string
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := exec(ctx, step.Args)
		done <- result{out, err}
	}()
	select {
	case res := <-done:
		if res.err != nil {
			reply.ExitCode = ExitFailed
			if errors.Is(res.err, context.DeadlineExceeded) {
				reply.ExitCode = ExitTimeout
			}
			reply.Error = res.err.Error()
			if oe := (*OutputError)(nil); errors.As(res.err, &oe) {
				reply.Output = oe.Output
			}
			return reply
		}
		reply.Output = res.out
	case <-ctx.Done():
		reply.ExitCode = ExitTimeout
		reply.Error = fmt.Sprintf("%v: step %s did not finish within %s", ErrTimeout, step.StepType, timeout)
	}
	return reply
}

func (d Deps) inventory(ctx context.Context, args []string) (string, error) {
	if len(args) > 1 {
		return "", fmt.Errorf("%w: inventory takes at most one argument, the host id", ErrArgs)
	}
	collect := d.Inventory
	if collect == nil {
		collect = inventory.Collect
	}
	inv, err := collect(ctx)
	if inv == nil {
		return "", fmt.Errorf("steps: inventory: %w", err)
	}
	// Parts that could not be read stay empty, as upstream sends them.
	if err != nil {
		inventory.LogErrors(d.log(), err)
	}
	return marshal(inv)
}

func (d Deps) log() *slog.Logger {
	if d.Log == nil {
		return slog.Default()
	}
	return d.Log
}
