package dhcpbench

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ErrParse is returned when perfdhcp's output is not what this package expects.
var ErrParse = errors.New("dhcpbench: cannot parse perfdhcp output")

// Phase is one half of a DORA exchange as perfdhcp reports it.
type Phase struct {
	Sent, Received int
	Delays         []time.Duration // one per answered packet, from -x t
}

// Report is what one perfdhcp run printed.
type Report struct {
	DO, RA Phase // DISCOVER-OFFER and REQUEST-ACK
}

// Parse reads perfdhcp's stdout (run with -x t).
func Parse(r io.Reader) (Report, error) {
	var rep Report
	var cur *Phase
	inTimes := false
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "***Statistics for: DISCOVER-OFFER"):
			cur, inTimes = &rep.DO, false
		case strings.HasPrefix(line, "***Statistics for: REQUEST-ACK"):
			cur, inTimes = &rep.RA, false
		case strings.HasPrefix(line, "***Timestamps for packets: DISCOVER-OFFER"):
			cur, inTimes = &rep.DO, true
		case strings.HasPrefix(line, "***Timestamps for packets: REQUEST-ACK"):
			cur, inTimes = &rep.RA, true
		case strings.HasPrefix(line, "***"):
			cur = nil
		case cur == nil:
		case inTimes && strings.HasPrefix(line, "sent / received:"):
			d, err := parseTimes(line)
			if err != nil {
				return rep, err
			}
			cur.Delays = append(cur.Delays, d)
		case strings.HasPrefix(line, "sent packets:"):
			cur.Sent = atoi(line)
		case strings.HasPrefix(line, "received packets:"):
			cur.Received = atoi(line)
		}
	}
	if err := sc.Err(); err != nil {
		return rep, fmt.Errorf("%w: %w", ErrParse, err)
	}
	if rep.DO.Sent == 0 {
		return rep, fmt.Errorf("%w: no DISCOVER-OFFER statistics", ErrParse)
	}
	return rep, nil
}

func atoi(line string) int {
	_, v, _ := strings.Cut(line, ":")
	n, _ := strconv.Atoi(strings.TrimSpace(v))
	return n
}

// parseTimes reads "sent / received: 000004.961376 / 000004.961575".
func parseTimes(line string) (time.Duration, error) {
	_, v, _ := strings.Cut(line, ":")
	a, b, ok := strings.Cut(v, "/")
	if !ok {
		return 0, fmt.Errorf("%w: %q", ErrParse, line)
	}
	sent, err1 := strconv.ParseFloat(strings.TrimSpace(a), 64)
	recv, err2 := strconv.ParseFloat(strings.TrimSpace(b), 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("%w: %q: %w", ErrParse, line, err)
	}
	return time.Duration((recv - sent) * float64(time.Second)), nil
}

// Percentiles of a set of delays.
type Percentiles struct {
	P50, P90, P99, Max time.Duration
}

// Summarize computes percentiles (nearest rank) of ds.
func Summarize(ds []time.Duration) Percentiles {
	if len(ds) == 0 {
		return Percentiles{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	at := func(q float64) time.Duration {
		i := int(q*float64(len(s))+0.5) - 1
		return s[max(0, min(i, len(s)-1))]
	}
	return Percentiles{P50: at(0.50), P90: at(0.90), P99: at(0.99), Max: s[len(s)-1]}
}
