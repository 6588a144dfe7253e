package console

import (
	"context"
	"sync"
	"time"
)

// rackEvery is how long the rack's state is reused: asking every member
// for its stats on each refresh of an open overview would cost the rack
// more than the page is worth.
const rackEvery = 5 * time.Second

// rackCache keeps the latest answer of Options.Rack.
type rackCache struct {
	mu   sync.Mutex
	fn   func(ctx context.Context) Rack
	now  func() time.Time
	at   time.Time
	last Rack
}

// get returns the rack's state, asking again when the last answer is
// older than rackEvery.
func (rc *rackCache) get(ctx context.Context) Rack {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if !rc.at.IsZero() && rc.now().Sub(rc.at) < rackEvery {
		return rc.last
	}
	rc.last, rc.at = rc.fn(ctx), rc.now()
	return rc.last
}
