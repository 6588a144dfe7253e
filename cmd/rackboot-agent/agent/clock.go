package agent

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"
)

// Clock is the agent's view of time; tests replace it so that waits
// return at once.
type Clock interface {
	Now() time.Time
	// Sleep waits d or until ctx is done, returning ctx.Err() then.
	Sleep(ctx context.Context, d time.Duration) error
}

// SystemClock is the real clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// Sleep waits d or until ctx is done.
func (SystemClock) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Backoff is capped exponential backoff with jitter: attempt n waits a
// random duration in [d/2, d) where d = Initial·2ⁿ capped at Max.
type Backoff struct {
	Initial, Max time.Duration
	// Rand returns a number in [0, 1); nil means math/rand/v2.
	Rand func() float64
}

// Default backoff: 1 s doubling up to a minute.
const (
	DefaultBackoffInitial = time.Second
	DefaultBackoffMax     = time.Minute
)

// Delay is the wait before retry number attempt (0-based).
func (b Backoff) Delay(attempt int) time.Duration {
	initial, limit := b.Initial, b.Max
	if initial <= 0 {
		initial = DefaultBackoffInitial
	}
	if limit < initial {
		limit = max(initial, DefaultBackoffMax)
	}
	d := initial
	for i := 0; i < attempt && d < limit; i++ {
		d *= 2
	}
	d = min(d, limit)
	r := rand.Float64
	if b.Rand != nil {
		r = b.Rand
	}
	return d/2 + time.Duration(r()*float64(d/2))
}

// ApplianceClock tracks the local clock's offset from the service's, as
// measured from the Date headers of its answers (1 s resolution).
type ApplianceClock struct {
	name   string
	mu     sync.Mutex
	offset time.Duration
	ok     bool
}

// NewApplianceClock returns a tracker that reports itself under name.
func NewApplianceClock(name string) *ApplianceClock { return &ApplianceClock{name: name} }

// Observe records one answer: the service's Date against the midpoint of
// the local send and receive times. Date is truncated to the second, so
// half a second is added to it.
func (a *ApplianceClock) Observe(sent, received, date time.Time) {
	mid := sent.Add(received.Sub(sent) / 2)
	off := date.Add(500 * time.Millisecond).Sub(mid)
	a.mu.Lock()
	a.offset, a.ok = off, true
	a.mu.Unlock()
}

// Offset returns the name, the service's clock minus the local clock, and
// whether any answer has been measured.
func (a *ApplianceClock) Offset() (string, time.Duration, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.name, a.offset, a.ok
}
