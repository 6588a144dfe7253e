package console

import (
	"fmt"
	"net/http"
	"time"
)

// liveEvery is the shortest time between two change notices of one
// stream: a burst of changes (a thousand agents registering) becomes one
// refresh of the page, not one per change.
const liveEvery = time.Second

// live is a Server-Sent Events stream: a "change" event (data: the
// store's log index) whenever the model changed, at most every
// liveEvery. The page then fetches itself again and swaps its live
// regions.
func (c *Console) live(w http.ResponseWriter, r *http.Request, _ session) {
	ctx := r.Context()
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	if _, err := fmt.Fprint(w, "retry: 2000\n\n"); err != nil || rc.Flush() != nil {
		return
	}
	tick := time.NewTicker(liveEvery)
	defer tick.Stop()
	for ctx.Err() == nil {
		changes := c.store.Subscribe(ctx)
		var index uint64
		pending := false
		for open := true; open; {
			select {
			case ch, ok := <-changes:
				if !ok {
					open, pending = false, true // fell behind: tell the page, subscribe again
					continue
				}
				index, pending = ch.Index, true
			case <-tick.C:
				if !pending {
					continue
				}
				pending = false
				if _, err := fmt.Fprintf(w, "event: change\ndata: %d\n\n", index); err != nil || rc.Flush() != nil {
					return
				}
			case <-ctx.Done():
				return
			}
		}
		if pending {
			if _, err := fmt.Fprintf(w, "event: change\ndata: %d\n\n", index); err != nil || rc.Flush() != nil {
				return
			}
		}
	}
}
