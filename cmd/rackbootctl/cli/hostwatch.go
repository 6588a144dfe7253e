package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
	"github.com/rackboot/rackboot/cmd/rackbootctl/output"
)

// errPoll: the server has no host watch stream; the watch polls instead.
var errPoll = errors.New("no host watch stream")

// hostEvent is one event of the stream of infra-env ie.
type hostEvent struct {
	ie string
	ev client.WatchEvent
}

// streamEnd is how the stream of infra-env ie ended (nil: the server
// closed it).
type streamEnd struct {
	ie  string
	err error
}

// hostWatch follows the host watch streams of one infra-env, or of every
// infra-env (re-listed each interval to pick up new ones), and merges
// them into one tracker. It owns the tracker; the streams run in their
// own goroutines and only send.
type hostWatch struct {
	a        *app
	c        *client.Client
	tr       *tracker
	format   output.Format
	only     string // the one infra-env, or "" for all
	keep     func(*client.Host) bool
	interval time.Duration
	events   chan hostEvent
	ended    chan streamEnd
	running  map[string]context.CancelFunc
	started  map[string]bool // streams that ran before: a restart re-lists
}

// watchHosts is get hosts -w: it streams, and polls (with poll) only when
// the server has no watch stream.
func (a *app) watchHosts(ctx context.Context, c *client.Client, hw *hostWatch, poll func() error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	hw.a, hw.c = a, c
	hw.events, hw.ended = make(chan hostEvent), make(chan streamEnd)
	hw.running, hw.started = map[string]context.CancelFunc{}, map[string]bool{}
	err := hw.run(ctx)
	cancel()
	for range hw.running { // let the streams finish
		<-hw.ended
	}
	if errors.Is(err, errPoll) {
		fmt.Fprintf(a.env.Stderr, "warning: the server does not stream host changes; polling every %s\n", hw.interval)
		return poll()
	}
	return err
}

func (hw *hostWatch) run(ctx context.Context) error {
	if err := hw.refresh(ctx); err != nil {
		return err // a refused token, say: no header before the error
	}
	if err := hw.tr.out.ready(); err != nil {
		return err
	}
	t := time.NewTicker(hw.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case e := <-hw.events:
			if err := hw.apply(e); err != nil {
				return err
			}
		case e := <-hw.ended:
			delete(hw.running, e.ie)
			if err := hw.end(ctx, e); err != nil {
				return err
			}
		case <-t.C:
			if err := hw.refresh(ctx); err != nil {
				return err
			}
		}
	}
}

// refresh starts the streams that should run and do not.
func (hw *hostWatch) refresh(ctx context.Context) error {
	ies := []string{hw.only}
	if hw.only == "" {
		envs, err := hw.c.ListInfraEnvs(ctx)
		if err != nil {
			return hw.warn(ctx, err)
		}
		ies = ies[:0]
		live := map[string]bool{}
		for _, e := range envs {
			ies = append(ies, e.ID)
			live[e.ID] = true
		}
		for ie, stop := range hw.running {
			if !live[ie] {
				stop() // gone; its end removes its hosts
			}
		}
	}
	for _, ie := range ies {
		if _, ok := hw.running[ie]; ok {
			continue
		}
		if err := hw.start(ctx, ie); err != nil {
			return err
		}
	}
	return nil
}

// start runs the stream of ie. A restart first lists ie's hosts, to
// print the deletions the stream missed while it was down.
func (hw *hostWatch) start(ctx context.Context, ie string) error {
	if hw.started[ie] {
		hs, err := hw.c.ListHosts(ctx, ie)
		if err != nil {
			return hw.warn(ctx, err)
		}
		present := map[string]bool{}
		for _, h := range hs {
			present[h.ID] = true
		}
		if err := hw.forget(ie, func(id string) bool { return !present[id] }); err != nil {
			return err
		}
	}
	hw.started[ie] = true
	sctx, stop := context.WithCancel(ctx)
	hw.running[ie] = stop
	go func() {
		err := hw.c.WatchHosts(sctx, ie, func(ev client.WatchEvent) error {
			select {
			case hw.events <- hostEvent{ie, ev}:
				return nil
			case <-sctx.Done():
				return sctx.Err()
			}
		})
		if sctx.Err() != nil {
			err = sctx.Err()
		}
		stop()
		hw.ended <- streamEnd{ie, err}
	}()
	return nil
}

// end handles a stream that ended: a closed or broken stream restarts at
// the next tick; a 404 means the infra-env is gone, or (if its hosts can
// still be listed) a server without the stream.
func (hw *hostWatch) end(ctx context.Context, e streamEnd) error {
	switch {
	case ctx.Err() != nil || e.err == nil:
		return nil
	case errors.Is(e.err, context.Canceled): // stopped by refresh: infra-env gone
		return hw.forget(e.ie, func(string) bool { return true })
	case errors.Is(e.err, client.ErrNoWatch):
		return errPoll
	case errors.Is(e.err, client.ErrNotFound):
		_, err := hw.c.ListHosts(ctx, e.ie)
		if err == nil {
			return errPoll
		}
		if hw.only != "" || !errors.Is(err, client.ErrNotFound) {
			return hw.warn(ctx, err)
		}
		return hw.forget(e.ie, func(string) bool { return true })
	}
	return hw.warn(ctx, e.err)
}

// warn reports a passing failure; a final answer ends the watch.
func (hw *hostWatch) warn(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	if isAnswer(err) {
		return err
	}
	fmt.Fprintf(hw.a.env.Stderr, "warning: %v (retrying)\n", err)
	return nil
}

// apply prints one event of a stream.
func (hw *hostWatch) apply(e hostEvent) error {
	h := e.ev.Object
	if e.ev.Type == client.WatchDeleted {
		return hw.tr.remove(h.ID)
	}
	if _, shown := hw.tr.last[h.ID]; !shown && !hw.keep(h) {
		return nil
	}
	tab := hostTable([]*client.Host{h}, hw.format)
	return hw.tr.upsert(h.ID, tab.Rows[0], h)
}

// forget removes the tracked hosts of ie for which gone is true.
func (hw *hostWatch) forget(ie string, gone func(id string) bool) error {
	for _, k := range append([]string(nil), hw.tr.order...) {
		h, ok := hw.tr.last[k].obj.(*client.Host)
		if ok && h.InfraEnvID == ie && gone(h.ID) {
			if err := hw.tr.remove(k); err != nil {
				return err
			}
		}
	}
	return nil
}
