package main

import (
	"fmt"
	"io"
	"math"
	"strings"
	"sync"

	metrics "github.com/hashicorp/go-metrics/compat"
)

// raftSink is a go-metrics sink that keeps, of the samples hashicorp/raft
// and raft-boltdb emit, the sums and counts that show batching: how many
// log writes (bolt transactions, each one fsync'd) and leader dispatches
// carried how many entries, and how long the writes took.
type raftSink struct {
	mu   sync.Mutex
	sums map[string]*sampleSum
}

// sampleSum accumulates one sample or gauge key; for timings (in ms)
// Over10 and Over50 count the samples of 10 ms and 50 ms or more.
type sampleSum struct {
	Count          uint64
	Sum            float64
	Over10, Over50 uint64
}

// Keys of the samples the sink keeps (dot-joined).
const (
	keyStoreLogs    = "raft.boltdb.storeLogs"       // one per log write, ms
	keyLogsPerBatch = "raft.boltdb.logsPerBatch"    // entries per log write
	keyDispatch     = "raft.leader.dispatchLog"     // one per leader dispatch, ms
	keyDispatchLogs = "raft.leader.dispatchNumLogs" // gauge: entries per dispatch
	keyCommitLogs   = "raft.commitNumLogs"          // gauge: entries per FSM hand-off
	keyCommitTime   = "raft.commitTime"             // per entry: dispatch to commit, ms
)

func keptKeys() []string {
	return []string{keyStoreLogs, keyLogsPerBatch, keyDispatch, keyDispatchLogs, keyCommitLogs, keyCommitTime}
}

func newRaftSink() *raftSink {
	s := &raftSink{sums: map[string]*sampleSum{}}
	for _, k := range keptKeys() {
		s.sums[k] = &sampleSum{}
	}
	return s
}

func (s *raftSink) add(key []string, val float32) {
	k := strings.Join(key, ".")
	s.mu.Lock()
	defer s.mu.Unlock()
	if sum, ok := s.sums[k]; ok {
		sum.Count++
		sum.Sum += float64(val)
		if val >= 10 {
			sum.Over10++
		}
		if val >= 50 {
			sum.Over50++
		}
	}
}

func (s *raftSink) SetGauge(key []string, val float32)                              { s.add(key, val) }
func (s *raftSink) SetGaugeWithLabels(key []string, val float32, _ []metrics.Label) { s.add(key, val) }
func (s *raftSink) EmitKey([]string, float32)                                       {}
func (s *raftSink) IncrCounter([]string, float32)                                   {}
func (s *raftSink) IncrCounterWithLabels([]string, float32, []metrics.Label)        {}
func (s *raftSink) AddSample(key []string, val float32)                             { s.add(key, val) }
func (s *raftSink) AddSampleWithLabels(key []string, val float32, _ []metrics.Label) {
	s.add(key, val)
}

// metricName is the Prometheus name of a kept key.
func metricName(key string) string {
	return "rackboot_bench_" + strings.ReplaceAll(key, ".", "_")
}

// writeTo writes every kept key as Prometheus samples: _count, _sum and
// the counts of samples ≥ 10 and ≥ 50 (ms for timings).
func (s *raftSink) writeTo(w io.Writer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range keptKeys() {
		sum := s.sums[k]
		n := metricName(k)
		fmt.Fprintf(w, "# TYPE %s summary\n%s_count %d\n%s_sum %s\n%s_ge10 %d\n%s_ge50 %d\n", n, n, sum.Count, n,
			formatFloat(sum.Sum), n, sum.Over10, n, sum.Over50)
	}
}

func formatFloat(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return "0"
	}
	return fmt.Sprintf("%.6f", f)
}

// install makes s the process's go-metrics sink (raft reports through the
// package-level go-metrics API), without runtime or hostname metrics.
func (s *raftSink) install() error {
	cfg := metrics.DefaultConfig("")
	cfg.EnableHostname = false
	cfg.EnableRuntimeMetrics = false
	cfg.EnableServiceLabel = false
	if _, err := metrics.NewGlobal(cfg, s); err != nil {
		return fmt.Errorf("agents: metrics sink: %w", err)
	}
	return nil
}
