package engine

import "sync/atomic"

// LoopStats counts a controller's passes and the failures it met, for
// metrics. A nil *LoopStats counts nothing; the zero value is ready.
type LoopStats struct {
	passes, errors atomic.Uint64
}

// Pass counts one pass of the loop.
func (l *LoopStats) Pass() {
	if l != nil {
		l.passes.Add(1)
	}
}

// Error counts one failure (of a pass, or of one object within it).
func (l *LoopStats) Error() {
	if l != nil {
		l.errors.Add(1)
	}
}

// Passes returns the passes counted.
func (l *LoopStats) Passes() uint64 { return l.passes.Load() }

// Errors returns the failures counted.
func (l *LoopStats) Errors() uint64 { return l.errors.Load() }
