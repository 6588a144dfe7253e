package engine

import "context"

// WhileLeader runs fn each time this node becomes the leader, with a
// context that is canceled when it stops leading (or ctx ends); fn must
// return soon after. WhileLeader returns when ctx is done (or the store's
// leadership feed ends) and fn has returned. Controllers that act on the
// world (monitors, timeouts, install orchestration) run under it.
func WhileLeader(ctx context.Context, st Store, fn func(ctx context.Context)) {
	var run *leaderRun
	defer func() { run.stop() }()
	for leader := range st.LeaderChanges(ctx) {
		switch {
		case !leader:
			run.stop()
			run = nil
		case run == nil:
			run = startLeaderRun(ctx, fn)
		}
	}
}

// leaderRun is one run of a WhileLeader function.
type leaderRun struct {
	cancel context.CancelFunc
	done   chan struct{}
}

func startLeaderRun(ctx context.Context, fn func(context.Context)) *leaderRun {
	ctx, cancel := context.WithCancel(ctx)
	r := &leaderRun{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		fn(ctx)
	}()
	return r
}

// stop cancels the run and waits for it; a nil run is a no-op.
func (r *leaderRun) stop() {
	if r == nil {
		return
	}
	r.cancel()
	<-r.done
}

// ApplyAs applies cmd and returns its value as a T: the zero T when the
// command has no value of that type.
func ApplyAs[T any](ctx context.Context, st Store, cmd Command) (T, error) {
	var zero T
	v, err := st.Apply(ctx, cmd)
	if err != nil {
		return zero, err
	}
	t, _ := v.(T)
	return t, nil
}
