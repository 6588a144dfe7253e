package steps

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/rackboot/rackboot/engine/models"
)

// DefaultMaxClockOffset is the largest clock offset from a source that is
// still called synced.
const DefaultMaxClockOffset = 2 * time.Second

// MaxNTPSources bounds the sources one ntp-synchronizer step queries.
const MaxNTPSources = 16

// ntp runs ntp-synchronizer: args[0] is an NtpSynchronizationRequest whose
// ntp_source lists servers separated by commas or spaces (host, host:port
// or [v6]:port). Each is queried once over SNTP. Where upstream reads
// chronyc's source states, this reports:
//   - synced: the source answered and the local clock is within
//     MaxClockOffset of it (the first such source);
//   - combined: a further source that answered within MaxClockOffset;
//   - error: the source answered but is unsynchronised or far off;
//   - unreachable: no valid answer in time.
//
// The appliance, whose clock the agent measures from the Date headers of
// its HTTP answers, is reported as one more source under its host name, so
// the service sees whether the host agrees with the appliance's time even
// with no NTP server configured.
func (d Deps) ntp(ctx context.Context, args []string) (string, error) {
	sources, err := parseNTPArgs(args)
	if err != nil {
		return "", err
	}
	resp := models.NtpSynchronizationResponse{NtpSources: []*models.NtpSource{}}
	synced := false
	state := func(offset time.Duration) models.SourceState {
		if abs(offset) > d.maxOffset() {
			return models.SourceStateError
		}
		if synced {
			return models.SourceStateCombined
		}
		synced = true
		return models.SourceStateSynced
	}
	for _, src := range sources {
		st := models.SourceStateUnreachable
		if res, err := d.querySource(ctx, src); err == nil {
			st = state(res.Offset)
		} else if errors.Is(err, ErrUnsynchronised) {
			st = models.SourceStateError
		}
		resp.NtpSources = append(resp.NtpSources, &models.NtpSource{SourceName: src, SourceState: st})
	}
	if d.Appliance != nil {
		if name, offset, ok := d.Appliance(); ok {
			resp.NtpSources = append(resp.NtpSources, &models.NtpSource{SourceName: name, SourceState: state(offset)})
		}
	}
	return marshal(resp)
}

// parseNTPArgs decodes and checks the step's argument (none means no
// sources).
func parseNTPArgs(args []string) ([]string, error) {
	var req models.NtpSynchronizationRequest
	if len(args) > 0 {
		if err := oneJSONArg("ntp-synchronizer", args, &req); err != nil {
			return nil, err
		}
	}
	sources := splitSources(req.NtpSource)
	if len(sources) > MaxNTPSources {
		return nil, fmt.Errorf("%w: ntp-synchronizer: %d sources, at most %d", ErrArgs, len(sources), MaxNTPSources)
	}
	for _, src := range sources {
		if err := checkNTPSource(src); err != nil {
			return nil, err
		}
	}
	return sources, nil
}

func (d Deps) maxOffset() time.Duration {
	if d.MaxClockOffset > 0 {
		return d.MaxClockOffset
	}
	return DefaultMaxClockOffset
}

func (d Deps) querySource(ctx context.Context, src string) (SNTPResult, error) {
	wait := d.NTPWait
	if wait <= 0 {
		wait = 3 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	addr := src
	if _, _, err := net.SplitHostPort(src); err != nil {
		addr = net.JoinHostPort(strings.Trim(src, "[]"), "123")
	}
	return SNTPQuery(ctx, addr)
}

// splitSources splits a comma- or space-separated list, dropping empties.
func splitSources(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' })
}

func abs(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// checkNTPSource accepts an IP address or a domain name, optionally with a
// port, as upstream's ValidateAdditionalNTPSource accepts them.
func checkNTPSource(src string) error {
	host := src
	if h, port, err := net.SplitHostPort(src); err == nil {
		if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
			return fmt.Errorf("%w: ntp-synchronizer: bad port in %q", ErrArgs, src)
		}
		host = h
	}
	if _, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return nil
	}
	if err := checkDomain(host); err != nil {
		return fmt.Errorf("%w: ntp-synchronizer: %q is neither an IP address nor a domain name", ErrArgs, src)
	}
	return nil
}
