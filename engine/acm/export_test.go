package acm

import (
	"context"

	"github.com/rackboot/rackboot/engine"
)

// WithAgentHook is o calling f with the host of every Agent reconciled.
func WithAgentHook(o Options, f func(host string)) Options {
	o.agentHook = f
	return o
}

// WithMemo is o remembering, as Run does, the revisions each Agent was
// reconciled at, across passes.
func WithMemo(o Options) Options {
	o.memo = newAgentMemo()
	return o
}

// Pass is the pass Run makes after the changes chs (false: none).
func Pass(ctx context.Context, o Options, chs []engine.Change) bool {
	only, ok := scope(chs)
	if ok {
		o, err := o.complete()
		if err != nil {
			panic(err)
		}
		reconcileAll(ctx, o, only)
	}
	return ok
}
