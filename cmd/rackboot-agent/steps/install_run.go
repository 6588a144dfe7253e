package steps

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"log/slog"
	"os"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	v35 "github.com/coreos/ignition/v2/config/v3_5"
	"github.com/coreos/vcontext/report"

	"github.com/rackboot/rackboot/cmd/rackboot-agent/protocol"
	"github.com/rackboot/rackboot/engine/models"
)

// Retry bounds of the install step.
const (
	stageAttempts        = 7 // a stage report is tried this often (about a minute of waits)
	ignitionAttempts     = 4
	imageRetries         = 5 // consecutive failed download attempts without progress
	progressStepPercent  = 5
	progressMinInterval  = 2 * time.Second
	defaultRetryWait     = time.Second
	defaultStallTimeout  = time.Minute
	reportTimeout        = 30 * time.Second
	percentTimeout       = 5 * time.Second // a percentage is not worth stalling the download
	failureReportTimeout = time.Minute
)

// failure is an install error whose text is the reason reported in
// progress_info. It never holds the token or the Ignition's content.
type failure struct {
	kind   error // a sentinel
	reason string
	cause  error
	final  bool // retrying cannot help
}

func (f *failure) Error() string {
	if f.cause == nil {
		return f.reason
	}
	return f.reason + ": " + f.cause.Error()
}

func (f *failure) Unwrap() []error {
	if f.cause == nil {
		return []error{ErrInstall, f.kind}
	}
	return []error{ErrInstall, f.kind, f.cause}
}

func fail(kind error, cause error, format string, v ...any) *failure {
	return &failure{kind: kind, cause: cause, reason: fmt.Sprintf(format, v...)}
}

func final(kind error, cause error, format string, v ...any) *failure {
	f := fail(kind, cause, format, v...)
	f.final = true
	return f
}

func isFinal(err error) bool {
	var f *failure
	return errors.As(err, &f) && f.final
}

// installer runs one install step.
type installer struct {
	deps    Deps
	args    *models.InstallStepArgs
	log     *slog.Logger
	dev     *os.File
	devSize int64
	touched bool  // a byte of the device was written
	written int64 // bytes of the image written so far
	total   int64 // the image's length once the server said it
	lastPct int
	lastAt  time.Time
}

func (in *installer) run(ctx context.Context) (*InstallResult, error) {
	for _, st := range []models.HostStage{models.HostStageStartingInstallation, models.HostStageInstalling} {
		if err := in.stage(ctx, st, ""); err != nil {
			return nil, err
		}
	}
	ign, err := in.ignition(ctx)
	if err != nil {
		return nil, err
	}
	if bin := in.deps.coreosInstaller(); bin != "" {
		return in.runCoreOSInstaller(ctx, bin, ign)
	}
	if err := in.open(); err != nil {
		return nil, err
	}
	if err := in.wipeOthers(); err != nil {
		return nil, err
	}
	sum, err := in.writeImage(ctx)
	if err != nil {
		return nil, err
	}
	if sum != in.args.ImageSHA256 {
		return nil, fail(ErrImage, nil, "disk image sha256 mismatch: got %s want %s", sum, in.args.ImageSHA256)
	}
	if err := in.placeIgnition(ign); err != nil {
		return nil, err
	}
	in.log.Info("disk image and ignition written", "device", in.args.BootDevice, "bytes", in.written)
	if err := in.stage(ctx, models.HostStageRebooting, ""); err != nil {
		return nil, err
	}
	return &InstallResult{BootDevice: in.args.BootDevice, ImageBytes: in.written, ImageSHA256: sum,
		IgnitionBytes: len(ign), Reboot: !in.args.ExternalReboot}, nil
}

// placeIgnition finishes the written CoreOS metal image as
// coreos-installer does: the host's Ignition, the kernel arguments and the
// network keyfiles on its boot file system (install_bootfs.go). An image
// without a partition named boot cannot be finished.
func (in *installer) placeIgnition(ign []byte) error {
	parts, err := ReadGPT(in.dev, in.devSize)
	if err != nil {
		return fail(ErrNoPartition, err, "the written disk image has no valid GPT")
	}
	p, err := FindPartition(parts, BootPartitionName)
	if err != nil {
		return fail(ErrNoPartition, err, "the disk image is not a CoreOS metal image")
	}
	e, err := coreosEdits(ign, in.args.InstallerArgs, in.deps.NetworkDir)
	if err != nil {
		return err
	}
	if err := in.dev.Sync(); err != nil {
		return fail(ErrDevice, err, "syncing boot device %s", in.args.BootDevice)
	}
	return in.finishCoreOS(p, e)
}

// ignition downloads the host's install Ignition and checks that it
// parses before anything touches the disk.
func (in *installer) ignition(ctx context.Context) ([]byte, error) {
	var (
		p   *models.HostIgnitionParams
		err error
	)
	for attempt := 0; attempt < ignitionAttempts; attempt++ {
		if err = in.wait(ctx, attempt); err != nil {
			break
		}
		p, err = in.deps.Install.HostIgnition(ctx, in.args.IgnitionURL)
		if err == nil || protocol.IsPermanent(err) || errors.Is(err, protocol.ErrConfig) {
			break
		}
	}
	if err != nil {
		return nil, fail(ErrIgnition, err, "downloading the host's ignition failed")
	}
	raw := []byte(p.Config)
	if _, rpt, err := v35.ParseCompatibleVersion(raw); err != nil {
		return nil, fail(ErrIgnition, nil, "the host's ignition config is invalid: %s", ignitionReason(err, rpt.Entries))
	}
	return raw, nil
}

// open opens the boot device and checks the image fits.
func (in *installer) open() error {
	dev, size, err := openDevice(in.args.BootDevice)
	if err != nil {
		return err
	}
	if in.args.ImageSize > size {
		dev.Close()
		return fail(ErrDevice, nil, "disk image is %d bytes, larger than boot device %s (%d bytes)", in.args.ImageSize, in.args.BootDevice, size)
	}
	in.dev, in.devSize = dev, size
	return nil
}

// wipeOthers wipes the partition tables of args.WipeDisks (metadata
// cleaning), so no old installation on another disk is found at boot.
func (in *installer) wipeOthers() error {
	for _, path := range in.args.WipeDisks {
		dev, size, err := openDevice(path)
		if err != nil {
			return err
		}
		err = wipeGPT(dev, size, 0)
		dev.Close()
		if err != nil {
			return fail(ErrDevice, err, "cannot wipe the partition tables of %s", path)
		}
		in.log.Info("partition tables wiped (automated cleaning: metadata)", "device", path)
	}
	return nil
}

// close closes the boot device, if open.
func (in *installer) close() {
	if in.dev != nil {
		_ = in.dev.Close() // synced already; a failed close loses nothing
	}
}

// stage reports a stage, retrying transient failures.
func (in *installer) stage(ctx context.Context, st models.HostStage, info string) error {
	var err error
	for attempt := 0; attempt < stageAttempts; attempt++ {
		if err = in.wait(ctx, attempt); err != nil {
			break
		}
		if err = in.report(ctx, reportTimeout, st, info); err == nil || protocol.IsPermanent(err) {
			break
		}
	}
	if err != nil {
		return fail(ErrInstall, err, "reporting stage %q failed", st)
	}
	in.log.Info("install stage", "stage", string(st), "info", info)
	return nil
}

func (in *installer) report(ctx context.Context, timeout time.Duration, st models.HostStage, info string) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return in.deps.Install.PutProgress(ctx, in.args.HostID, models.HostProgress{CurrentStage: st, ProgressInfo: progressInfo(info)})
}

// maxProgressInfo is the longest progress_info sent; the service takes
// up to 1024 bytes without control characters.
const maxProgressInfo = 1000

// progressInfo makes s fit progress_info: control characters become
// spaces, and it is cut (on a character boundary) with "…".
func progressInfo(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "?"))
	if len(s) <= maxProgressInfo {
		return s
	}
	cut := maxProgressInfo - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// percent reports "Writing image to disk" with a percentage: the first
// and the last always, others at most every progressStepPercent and
// progressMinInterval. Only a refusal (the installation was cancelled)
// stops the install; other failures are logged.
func (in *installer) percent(ctx context.Context, pct int) error {
	now := time.Now()
	if in.lastAt.IsZero() || pct == 100 {
		// first and last: always
	} else if pct < in.lastPct+progressStepPercent || now.Sub(in.lastAt) < progressMinInterval {
		return nil
	}
	in.lastPct, in.lastAt = pct, now
	err := in.report(ctx, percentTimeout, models.HostStageWritingImageToDisk, fmt.Sprintf("%d%%", pct))
	if protocol.IsPermanent(err) {
		return final(ErrInstall, err, "the service refused a progress report")
	}
	if err != nil {
		in.log.Warn("progress report failed", "err", err)
	}
	return nil
}

// wait waits before retry number attempt (none before the first).
func (in *installer) wait(ctx context.Context, attempt int) error {
	if attempt == 0 {
		return ctx.Err()
	}
	d := in.deps.InstallRetryWait
	if d <= 0 {
		d = defaultRetryWait
	}
	t := time.NewTimer(d << min(attempt-1, 6))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// abort makes sure a half-written disk never boots and reports Failed with
// the reason, even when ctx is already done.
func (in *installer) abort(ctx context.Context, err error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), failureReportTimeout)
	defer cancel()
	if in.touched {
		if werr := wipeGPT(in.dev, in.devSize, max(in.total, in.args.ImageSize, in.written)); werr != nil {
			in.log.Error("could not wipe the partition tables of a failed install", "device", in.args.BootDevice, "err", werr)
		}
	}
	in.log.Error("install failed", "err", err)
	if rerr := in.stage(ctx, models.HostStageFailed, err.Error()); rerr != nil {
		in.log.Error("reporting the failure failed", "err", rerr)
	}
}

// ignitionReason names what the parser refused without quoting the
// config, which holds secrets: the error and the first fatal entry's
// path and message, cut at its first quote.
func ignitionReason(err error, entries []report.Entry) string {
	msg := err.Error()
	for _, e := range entries {
		if !e.Kind.IsFatal() {
			continue
		}
		m := e.Message
		if i := strings.IndexAny(m, "\"'`"); i >= 0 {
			m = strings.TrimSpace(m[:i]) + " …"
		}
		msg += fmt.Sprintf(" (%s: %s)", e.Context.String(), m)
		break
	}
	return msg
}

func hexSum(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)) }
