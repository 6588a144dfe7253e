package ha

import (
	"fmt"
	"math"
	"sort"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"
)

// RegisterInput is one operation on a key-value register: a write of
// Value to Key, or a read of Key.
type RegisterInput struct {
	Key   string
	Write bool
	Value string
}

// RegisterOutput is what a read returned. Writes' outputs are ignored.
type RegisterOutput struct {
	Value string
}

// RegisterModel is a key-value register, one register per key (the
// history is partitioned by key): a write sets the value, a read returns
// the last value written, starting from the value the key was created
// with (initial).
func RegisterModel(initial map[string]string) porcupine.Model {
	return porcupine.Model{
		Partition: func(h []porcupine.Operation) [][]porcupine.Operation {
			byKey := map[string][]porcupine.Operation{}
			var keys []string
			for _, op := range h {
				k := op.Input.(RegisterInput).Key
				if _, ok := byKey[k]; !ok {
					keys = append(keys, k)
				}
				byKey[k] = append(byKey[k], op)
			}
			sort.Strings(keys)
			out := make([][]porcupine.Operation, 0, len(keys))
			for _, k := range keys {
				out = append(out, byKey[k])
			}
			return out
		},
		Init: func() any { return "" },
		Step: func(state, input, output any) (bool, any) {
			in := input.(RegisterInput)
			cur := state.(string)
			if cur == "" {
				cur = initial[in.Key]
			}
			if in.Write {
				return true, in.Value
			}
			return output.(RegisterOutput).Value == cur, cur
		},
		DescribeOperation: func(input, output any) string {
			in := input.(RegisterInput)
			if in.Write {
				return fmt.Sprintf("put(%s, %q)", in.Key, in.Value)
			}
			return fmt.Sprintf("get(%s) -> %q", in.Key, output.(RegisterOutput).Value)
		},
	}
}

// History records operations with their call and return times.
type History struct {
	start time.Time
	mu    sync.Mutex
	ops   []porcupine.Operation
	// counts by outcome
	Acked, Unknown, Failed, Reads int
}

// NewHistory starts a history now.
func NewHistory() *History { return &History{start: time.Now()} }

// Now is the history's clock (monotonic nanoseconds since its start).
func (h *History) Now() int64 { return int64(time.Since(h.start)) }

// Write records a write; acked says the server acknowledged it, unknown
// that no answer (or a server error) left its fate open: such a write may
// take effect at any time after its call, so it gets an open end.
// Writes refused for certain (failed) are not recorded.
func (h *History) Write(client int, key, value, via string, call, ret int64, acked, unknown bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case acked:
		h.Acked++
	case unknown:
		h.Unknown++
		ret = math.MaxInt64
	default:
		h.Failed++
		return
	}
	h.ops = append(h.ops, porcupine.Operation{ClientId: client, Input: RegisterInput{Key: key, Write: true, Value: value},
		Call: call, Output: RegisterOutput{}, Return: ret, Metadata: via})
}

// Read records a read through via that returned value.
func (h *History) Read(client int, key, value, via string, call, ret int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.Reads++
	h.ops = append(h.ops, porcupine.Operation{ClientId: client, Input: RegisterInput{Key: key},
		Call: call, Output: RegisterOutput{Value: value}, Return: ret, Metadata: via})
}

// Operations is a copy of the history so far.
func (h *History) Operations() []porcupine.Operation {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]porcupine.Operation(nil), h.ops...)
}

// Check checks the history for linearizability against the register
// model. When it is not linearizable (or the check timed out), a
// visualization is written to vis (when not "").
func (h *History) Check(initial map[string]string, timeout time.Duration, vis string) (porcupine.CheckResult, error) {
	model := RegisterModel(initial)
	res, info := porcupine.CheckOperationsVerbose(model, h.Operations(), timeout)
	if res != porcupine.Ok && vis != "" {
		if err := porcupine.VisualizePath(model, info, vis); err != nil {
			return res, fmt.Errorf("%w: visualization: %w", ErrRack, err)
		}
	}
	return res, nil
}

// StaleReads lists reads that returned a value some acknowledged write had
// already overwritten before the read began: a write W of that value, then
// a write W2 of the same key that began after W returned and returned
// before the read began. Values are unique per write, so this is a
// certain linearizability violation; the list explains what porcupine
// rejects.
func (h *History) StaleReads() []string {
	ops := h.Operations()
	writes := map[string]porcupine.Operation{} // by value
	for _, op := range ops {
		if in := op.Input.(RegisterInput); in.Write {
			writes[in.Value] = op
		}
	}
	var out []string
	for _, r := range ops {
		in := r.Input.(RegisterInput)
		if in.Write {
			continue
		}
		v := r.Output.(RegisterOutput).Value
		w, ok := writes[v]
		if !ok {
			continue // the initial value, or a lost-and-never-written value
		}
		for _, w2 := range ops {
			in2 := w2.Input.(RegisterInput)
			if in2.Write && in2.Key == in.Key && w2.Call > w.Return && w2.Return < r.Call && w2.Return != math.MaxInt64 {
				out = append(out, fmt.Sprintf("read of %s through %v at %s returned %q (written through %v, returned at %s), "+
					"but %q was written through %v in [%s, %s]", in.Key, r.Metadata, dur(r.Call), v, w.Metadata, dur(w.Return),
					in2.Value, w2.Metadata, dur(w2.Call), dur(w2.Return)))
				break
			}
		}
	}
	return out
}

func dur(ns int64) string { return time.Duration(ns).Round(time.Millisecond).String() }
