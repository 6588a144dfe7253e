package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rackboot/rackboot/boot/discovery"
	"github.com/rackboot/rackboot/cmd/rackboot-agent/protocol"
	"github.com/rackboot/rackboot/engine/models"
)

// ErrNoInventoryStep: a new host was not asked for its inventory.
var ErrNoInventoryStep = errors.New("agents: no inventory step in the first instructions")

// agentVersion is what the simulated agents send as discovery_agent_version.
const agentVersion = "rackboot-bench-agents"

// maxErrorLines bounds the request errors printed to stderr.
const maxErrorLines = 10

// simulator runs the simulated agents of one infra-env.
type simulator struct {
	client *protocol.Client
	hosts  []identity
	invs   []string
	// per request kind
	register, instructions, reply, poll *recorder
	printed                             atomic.Int32
	lateStarts                          atomic.Int64 // polls started > 1 s after their slot
	timeline                            *timeline    // poll latencies over the polling phase
	onStall                             func()       // called (once) when a poll is in flight for stallAfter
	stalled                             sync.Once
}

// stallAfter is the poll latency that counts as a stall worth a goroutine
// dump of the server.
const stallAfter = 2 * time.Second

// dialFunc makes the agents' connections (nil: the default dialer).
type dialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// newSimulator makes n hosts with their inventories and one agent client
// (the real agent's) whose connection pool holds conns connections made
// with dial.
func newSimulator(ac discovery.AgentConfig, n, conns int, run uint16, dial dialFunc) (*simulator, error) {
	gen, err := newInventoryGen()
	if err != nil {
		return nil, err
	}
	tr := &http.Transport{MaxIdleConns: conns, MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns,
		IdleConnTimeout: 90 * time.Second, DialContext: dial}
	c, err := protocol.New(protocol.Config{URL: ac.ServiceURL, InfraEnvID: ac.InfraEnvID, Token: ac.Token,
		AgentVersion: agentVersion, HTTP: &http.Client{Transport: tr, Timeout: 30 * time.Second}})
	if err != nil {
		return nil, err
	}
	s := &simulator{client: c, hosts: make([]identity, n), invs: make([]string, n),
		register:     newRecorder("register (POST …/hosts → 201)", n),
		instructions: newRecorder("first instructions (GET …/instructions → 200)", n),
		reply:        newRecorder("inventory reply (POST …/instructions → 204)", n),
		poll:         newRecorder("steady poll (GET …/instructions → 200)", n*4)}
	for i := range n {
		s.hosts[i] = hostIdentity(run, i)
		if s.invs[i], err = gen.inventory(s.hosts[i]); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// logErr prints the first few request errors.
func (s *simulator) logErr(host int, err error) {
	if err != nil && s.printed.Add(1) <= maxErrorLines {
		fmt.Fprintf(os.Stderr, "agents: host %d: %v\n", host, err)
	}
}

// timed runs fn and records its duration in r.
func timed(r *recorder, fn func() error) error {
	t0 := time.Now()
	err := fn()
	r.add(time.Since(t0), err)
	return err
}

// registerOne is one host's first minute: register, ask for instructions,
// answer the inventory step.
func (s *simulator) registerOne(ctx context.Context, i int) error {
	id := s.hosts[i].HostID
	if err := timed(s.register, func() error { _, err := s.client.Register(ctx, id); return err }); err != nil {
		return err
	}
	var steps *models.Steps
	if err := timed(s.instructions, func() (err error) { steps, err = s.client.NextSteps(ctx, id, time.Now()); return err }); err != nil {
		return err
	}
	stepID := ""
	for _, st := range steps.Instructions {
		if st.StepType == models.StepTypeInventory {
			stepID = st.StepID
		}
	}
	if stepID == "" {
		return ErrNoInventoryStep
	}
	return timed(s.reply, func() error {
		return s.client.PostReply(ctx, id, &models.StepReply{StepType: models.StepTypeInventory, StepID: stepID, Output: s.invs[i]})
	})
}

// registerAll registers every host with at most concurrency in flight and
// returns how long it took and how many hosts failed.
func (s *simulator) registerAll(ctx context.Context, concurrency int) (time.Duration, int) {
	next := atomic.Int64{}
	var failed atomic.Int64
	var wg sync.WaitGroup
	t0 := time.Now()
	for range concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= len(s.hosts) {
					return
				}
				if err := s.registerOne(ctx, i); err != nil {
					failed.Add(1)
					s.logErr(i, err)
				}
			}
		}()
	}
	wg.Wait()
	return time.Since(t0), int(failed.Load())
}

// pollAll has every host poll its instructions once per interval, host i
// first at i·interval/n after the start, until d has passed. It returns
// the number of polls sent.
//
// The CPU counters of the machine and of the process serverPID are marked
// at the start of every timeline window.
func (s *simulator) pollAll(ctx context.Context, interval, d time.Duration, serverPID int) int {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	start := time.Now()
	s.timeline = newTimeline(start, 10*time.Second, d)
	go s.markWindows(ctx, start, serverPID)
	n := len(s.hosts)
	var wg sync.WaitGroup
	var sent atomic.Int64
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slot := start.Add(time.Duration(int64(interval) * int64(i) / int64(n)))
			for {
				if !sleepUntil(ctx, slot) {
					return
				}
				if late := time.Since(slot); late > time.Second {
					s.lateStarts.Add(1)
				}
				sent.Add(1)
				t0 := time.Now()
				watch := s.watchStall()
				_, err := s.client.NextSteps(ctx, s.hosts[i].HostID, t0)
				watch.Stop()
				if ctx.Err() != nil {
					return // cut off by the end of the phase: not a server failure
				}
				lat := time.Since(t0)
				s.poll.add(lat, err)
				s.timeline.add(t0, lat)
				s.logErr(i, err)
				slot = slot.Add(interval)
			}
		}()
	}
	wg.Wait()
	return int(sent.Load())
}

// sleepUntil waits for t; false when ctx ended first.
func sleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// markWindows marks the CPU counters at every window boundary, and once
// more when the phase ends.
func (s *simulator) markWindows(ctx context.Context, start time.Time, pid int) {
	for k := 0; ; k++ {
		ok := sleepUntil(ctx, start.Add(time.Duration(k)*s.timeline.width))
		s.timeline.mark(readCPUMark(pid))
		if !ok {
			return
		}
	}
}

// watchStall calls onStall (once per run) if not stopped within stallAfter,
// so that the server's goroutines are dumped while a poll is stuck.
func (s *simulator) watchStall() *time.Timer {
	return time.AfterFunc(stallAfter, func() {
		if s.onStall != nil {
			s.stalled.Do(s.onStall)
		}
	})
}
