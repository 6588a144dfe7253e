package bmhctl

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/rackboot/rackboot/bmc"
	"github.com/rackboot/rackboot/engine"
)

// maxErrorMessage bounds the error text kept in a BMH's status.
const maxErrorMessage = 1024

// action runs the BMC steps of one reconcile, each with an event; the
// first failure is recorded and ends the sequence.
type action struct {
	c      *Controller
	b      engine.BareMetalHost
	hostID string
	ie     string
	drv    bmc.Driver
	last   string   // the last operation that succeeded
	hidden []string // strings no message may show (the image URL)
}

// do runs one BMC operation: an event and a log record on success, the
// BMH's failure status on error.
func (a *action) do(ctx context.Context, op, event, msg string, fn func(context.Context) error) bool {
	if err := fn(ctx); err != nil {
		a.c.fail(ctx, a.b, op, err, a.hidden...)
		return false
	}
	a.last = op
	a.c.o.Log.InfoContext(ctx, "bmc "+op, "bmh", a.b.Name, "host", a.hostID, "mac", a.b.BootMACAddress)
	a.c.event(ctx, a.b, a.hostID, a.ie, event, "info", fmt.Sprintf("BareMetalHost %s: %s", a.b.Name, msg))
	return true
}

func (a *action) insert(ctx context.Context, images Images) bool {
	if images == nil {
		a.c.fail(ctx, a.b, "insert virtual media", fmt.Errorf("%w: no ISO server configured for virtual media", ErrConfig))
		return false
	}
	u, err := images.ISOURL(ctx, a.ie)
	if err != nil {
		a.c.fail(ctx, a.b, "insert virtual media", fmt.Errorf("%w: discovery ISO URL: %w", ErrConfig, err))
		return false
	}
	a.hidden = append(a.hidden, u)
	return a.do(ctx, "insert virtual media", "bmh_media_inserted",
		fmt.Sprintf("inserted the discovery ISO of infra-env %s (from %s) as virtual media", a.ie, urlHost(u)),
		func(ctx context.Context) error { return a.drv.InsertMedia(ctx, u) })
}

func (a *action) eject(ctx context.Context) bool {
	return a.do(ctx, "eject virtual media", "bmh_media_ejected", "ejected the virtual media",
		func(ctx context.Context) error { return a.drv.EjectMedia(ctx) })
}

func (a *action) bootOnce(ctx context.Context, dev bmc.BootDevice, mode bmc.BootMode) bool {
	msg := "next boot (once) from " + string(dev)
	if mode != bmc.BootModeUnchanged {
		msg += " in " + string(mode) + " mode"
	}
	return a.do(ctx, "boot once "+string(dev), "bmh_boot_once", msg,
		func(ctx context.Context) error { return a.drv.SetBootOnce(ctx, dev, mode) })
}

func (a *action) powerOnOrReset(ctx context.Context, ps bmc.PowerState) bool {
	if ps == bmc.PowerOn {
		return a.reset(ctx)
	}
	return a.do(ctx, "power on", "bmh_power_on", "powered on",
		func(ctx context.Context) error { return a.drv.PowerOn(ctx) })
}

func (a *action) powerOff(ctx context.Context) bool {
	return a.do(ctx, "power off", "bmh_power_off", "powered off (spec.online is false)",
		func(ctx context.Context) error { return a.drv.PowerOff(ctx) })
}

func (a *action) reset(ctx context.Context) bool {
	return a.do(ctx, "reset", "bmh_reset", "reset",
		func(ctx context.Context) error { return a.drv.Reset(ctx) })
}

// urlHost is the host of an image URL: what events may show of it.
func urlHost(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "?"
	}
	return u.Host
}

// succeed records a step that worked: the state, the power state, the
// operation, and no error. It returns the stored BMH.
func (c *Controller) succeed(ctx context.Context, b engine.BareMetalHost, state string, ps bmc.PowerState, op string) (engine.BareMetalHost, bool) {
	st := b.Status
	st.ProvisioningState, st.PowerState = state, string(ps)
	st.OperationalStatus = engine.BMHStatusOK
	if state == engine.BMHDetached {
		st.OperationalStatus = engine.BMHStatusDetached
	}
	st.LastOperation, st.LastOperationAt = op, c.o.Now()
	st.ErrorType, st.ErrorMessage, st.ErrorCount, st.NextRetryAt = "", "", 0, time.Time{}
	nb, err := engine.ApplyAs[engine.BareMetalHost](ctx, c.o.Store,
		&engine.SetBareMetalHostStatus{Name: b.Name, Revision: b.Revision, Status: st})
	if err != nil {
		c.o.Log.WarnContext(ctx, "baremetal host status", "bmh", b.Name, "err", err)
		return b, false
	}
	return nb, true
}

// fail records a failed step: its class, the message (with hidden strings
// and the credentials removed), one more failure in a row and when to try
// again; and an event.
func (c *Controller) fail(ctx context.Context, b engine.BareMetalHost, op string, err error, hidden ...string) {
	c.o.Loop.Error()
	now := c.o.Now()
	st := b.Status
	st.ErrorCount++
	st.ErrorType = Classify(err)
	st.ErrorMessage = clip(redact(op+": "+err.Error(), hidden...))
	st.OperationalStatus = engine.BMHStatusError
	st.LastOperation, st.LastOperationAt = op+" failed", now
	st.NextRetryAt = now.Add(c.backoff(st.ErrorCount))
	retry := "next at " + st.NextRetryAt.UTC().Format("15:04:05")
	if Permanent(st) {
		st.NextRetryAt = time.Time{}
		st.ErrorMessage = clip(st.ErrorMessage + "; " + notRetried)
		retry = "not retried until the BareMetalHost changes"
	}
	if st.ProvisioningState == "" {
		st.ProvisioningState = engine.BMHRegistering
	}
	c.o.Log.WarnContext(ctx, "baremetal host failure", "bmh", b.Name, "mac", b.BootMACAddress,
		"error_type", st.ErrorType, "errors", st.ErrorCount, "retry_at", st.NextRetryAt, "err", st.ErrorMessage)
	_, aerr := c.o.Store.Apply(ctx, &engine.SetBareMetalHostStatus{Name: b.Name, Revision: b.Revision, Status: st})
	if aerr != nil {
		c.o.Log.WarnContext(ctx, "baremetal host status", "bmh", b.Name, "err", aerr)
		return
	}
	c.event(ctx, b, b.Status.HostID, "", "bmh_error", "warning",
		fmt.Sprintf("BareMetalHost %s: %s (%s, attempt %d, %s)", b.Name, st.ErrorMessage, st.ErrorType,
			st.ErrorCount, retry))
}

// Error classes of BMHStatus.ErrorType.
const (
	ErrorBadCredentials = "bad-credentials"
	ErrorUnreachable    = "unreachable"
	ErrorUnsupported    = "unsupported"
	ErrorConfig         = "config"
	ErrorBMC            = "bmc-error"
)

// MaxCredentialAttempts is how many times in a row a BMC may refuse the
// credentials before the controller stops asking (a BMC locks the account
// after a few failed logins).
const MaxCredentialAttempts = 3

// notRetried ends the message of a permanent error.
const notRetried = "not retried until the BareMetalHost changes"

// Permanent reports whether the BMH's last error stops the retries: the BMC
// does not support what is asked (unsupported), or refused the credentials
// MaxCredentialAttempts times in a row. Any change of the BMH (or a PATCH
// with retry) clears it.
func Permanent(st engine.BMHStatus) bool {
	switch st.ErrorType {
	case ErrorUnsupported:
		return st.ErrorCount > 0
	case ErrorBadCredentials:
		return st.ErrorCount >= MaxCredentialAttempts
	}
	return false
}

// Classify names the class of a controller error.
func Classify(err error) string {
	switch {
	case errors.Is(err, bmc.ErrBadCredentials):
		return ErrorBadCredentials
	case errors.Is(err, bmc.ErrUnreachable):
		return ErrorUnreachable
	case errors.Is(err, bmc.ErrUnsupported):
		return ErrorUnsupported
	case errors.Is(err, ErrConfig), errors.Is(err, bmc.ErrBadAddress):
		return ErrorConfig
	}
	return ErrorBMC
}

func redact(s string, hidden ...string) string {
	for _, h := range hidden {
		if h != "" {
			s = strings.ReplaceAll(s, h, "[redacted]")
		}
	}
	return s
}

func clip(s string) string {
	if len(s) > maxErrorMessage {
		return s[:maxErrorMessage] + "…"
	}
	return s
}

// event appends an event about BMH b (never a URL or credentials).
func (c *Controller) event(ctx context.Context, b engine.BareMetalHost, hostID, ie, name, severity, msg string) {
	e := engine.Event{Name: name, Severity: severity, Message: msg, HostID: hostID, InfraEnvID: ie,
		Props: map[string]string{"bmh": b.Name}}
	if _, err := c.o.Store.Apply(ctx, &engine.AppendEvent{Event: e}); err != nil {
		c.o.Log.WarnContext(ctx, "baremetal host event", "bmh", b.Name, "err", err)
	}
}
