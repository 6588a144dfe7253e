package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/rackboot/rackboot/cmd/rackboot-agent/protocol"
	"github.com/rackboot/rackboot/engine/models"
)

// Defaults of the loop, as upstream's agent has them.
const (
	DefaultInterval     = 60 * time.Second // poll interval when the service names none
	DefaultDedupeWindow = time.Hour
	NoRunnerWait        = time.Hour // wait after a registration without a runner command
)

// Service is the part of the service the agent talks to
// (*protocol.Client).
type Service interface {
	Register(ctx context.Context, hostID string) (*models.HostRegistrationResponse, error)
	NextSteps(ctx context.Context, hostID string, now time.Time) (*models.Steps, error)
	PostReply(ctx context.Context, hostID string, reply *models.StepReply) error
}

// StepRunner runs one step (*steps.Runner).
type StepRunner interface {
	Run(ctx context.Context, step *models.Step) *models.StepReply
}

// Agent registers one host and serves its instructions.
type Agent struct {
	Service Service
	Steps   StepRunner
	HostID  string
	Log     *slog.Logger // nil means slog.Default()
	Clock   Clock        // nil means SystemClock{}
	Backoff Backoff
	// Interval is the poll interval when the service names none; 0 means
	// DefaultInterval.
	Interval time.Duration
	// DedupeWindow: an identical successful output of a step type is not
	// sent again within it; 0 means DefaultDedupeWindow.
	DedupeWindow time.Duration
	// Reboot restarts the machine once an install step's reply is sent
	// (SystemReboot in the binary). nil: the agent logs that it cannot
	// reboot and keeps polling; tests never reboot the machine they run on.
	Reboot func(ctx context.Context) error

	mu   sync.Mutex
	sent map[models.StepType]sentOutput
}

type sentOutput struct {
	output string
	at     time.Time
}

// Run registers and serves instructions until ctx is done (returning
// ctx.Err()) or the service refuses the agent for good (an error
// wrapping ErrRefused).
func (a *Agent) Run(ctx context.Context) error {
	if !protocol.ValidID(a.HostID) {
		return fmt.Errorf("%w: host id %q is not 8-4-4-4-12 hex", ErrConfig, a.HostID)
	}
	for {
		hostID, err := a.register(ctx)
		if err != nil {
			return err
		}
		if err := a.serve(ctx, hostID); err != nil {
			return err
		}
		a.log().Info("service asked the agent to register again", "host", hostID)
	}
}

// register retries until the host is registered with a runner command and
// returns the host id to poll with.
func (a *Agent) register(ctx context.Context) (string, error) {
	for attempt := 0; ; attempt++ {
		resp, err := a.Service.Register(ctx, a.HostID)
		switch {
		case err == nil && resp.NextStepRunnerCommand == nil:
			a.log().Warn("registered without a step runner command; waiting before registering again", "host", a.HostID, "wait", NoRunnerWait)
			if err := a.clock().Sleep(ctx, NoRunnerWait); err != nil {
				return "", err
			}
			attempt = -1
			continue
		case err == nil:
			id := a.runnerHostID(resp.NextStepRunnerCommand)
			a.log().Info("host registered", "host", id, "status", resp.Status)
			return id, nil
		case protocol.IsPermanent(err):
			return "", fmt.Errorf("%w: registration: %w", ErrRefused, err)
		case ctx.Err() != nil:
			return "", ctx.Err()
		}
		if err := a.retry(ctx, "registration failed", attempt, err); err != nil {
			return "", err
		}
	}
}

// runnerHostID reads the host id from the runner command's argument, as
// upstream's next-step runner does, falling back to the agent's own.
func (a *Agent) runnerHostID(cmd *models.NextStepRunnerCommand) string {
	if len(cmd.Args) == 1 {
		var req models.NextStepCmdRequest
		if json.Unmarshal([]byte(cmd.Args[0]), &req) == nil && protocol.ValidID(req.HostID) {
			return req.HostID
		}
	}
	return a.HostID
}

// serve polls and runs instructions until the service says exit (nil),
// refuses the agent, or ctx is done.
func (a *Agent) serve(ctx context.Context, hostID string) error {
	failures := 0
	for {
		steps, err := a.Service.NextSteps(ctx, hostID, a.clock().Now())
		switch {
		case err == nil:
			failures = 0
		case protocol.IsPermanent(err):
			return fmt.Errorf("%w: instructions: %w", ErrRefused, err)
		case ctx.Err() != nil:
			return ctx.Err()
		default:
			if err := a.retry(ctx, "polling instructions failed", failures, err); err != nil {
				return err
			}
			failures++
			continue
		}
		if err := a.runAll(ctx, hostID, steps.Instructions); err != nil {
			return err
		}
		if steps.PostStepAction == models.PostStepActionExit {
			return nil
		}
		wait := time.Duration(steps.NextInstructionSeconds) * time.Second
		if wait <= 0 {
			wait = a.interval()
		}
		if err := a.clock().Sleep(ctx, wait); err != nil {
			return err
		}
	}
}

// runAll runs the steps concurrently and posts each reply. Install steps
// run afterwards, one at a time, with no other step going; a successful
// one that asks for a reboot ends the loop with a reboot.
func (a *Agent) runAll(ctx context.Context, hostID string, steps []*models.Step) error {
	var others, installs []*models.Step
	for _, st := range steps {
		if st.StepType == models.StepTypeInstall {
			installs = append(installs, st)
		} else {
			others = append(others, st)
		}
	}
	errs := make([]error, len(others))
	var wg sync.WaitGroup
	for i, st := range others {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = a.runOne(ctx, hostID, st)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	for _, st := range installs {
		if err := a.install(ctx, hostID, st); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// runOne runs one step, posts its reply and returns the reply.
func (a *Agent) runOne(ctx context.Context, hostID string, st *models.Step) (*models.StepReply, error) {
	log := a.log().With("host", hostID, "step_id", st.StepID, "step_type", string(st.StepType))
	log.Info("running step")
	reply := a.Steps.Run(ctx, st)
	if reply.ExitCode != 0 {
		log.Warn("step failed", "exit_code", reply.ExitCode, "error", reply.Error)
	}
	if a.duplicate(reply) {
		log.Debug("step output unchanged; not sent again")
		return reply, nil
	}
	err := a.Service.PostReply(ctx, hostID, reply)
	switch {
	case err == nil:
		a.remember(reply)
		return reply, nil
	case protocol.IsPermanent(err):
		return reply, fmt.Errorf("%w: step reply: %w", ErrRefused, err)
	}
	// Upstream drops a reply the service did not take; the step comes back.
	log.Warn("sending step reply failed", "err", err)
	return reply, nil
}

func (a *Agent) duplicate(r *models.StepReply) bool {
	if r.ExitCode != 0 || r.StepType == models.StepTypeInstall {
		return false // an install's reply is always sent
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	prev, ok := a.sent[r.StepType]
	return ok && prev.output == r.Output && a.clock().Now().Sub(prev.at) < a.dedupeWindow()
}

func (a *Agent) remember(r *models.StepReply) {
	if r.ExitCode != 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.sent == nil {
		a.sent = map[models.StepType]sentOutput{}
	}
	a.sent[r.StepType] = sentOutput{output: r.Output, at: a.clock().Now()}
}

// retry logs a transient failure and waits out backoff attempt.
func (a *Agent) retry(ctx context.Context, msg string, attempt int, err error) error {
	wait := a.Backoff.Delay(attempt)
	level := slog.LevelWarn
	if errors.Is(err, protocol.ErrTransport) && attempt > 0 {
		level = slog.LevelInfo // an unreachable appliance is logged loudly once
	}
	a.log().Log(ctx, level, msg+"; retrying", "host", a.HostID, "err", err, "retry_in", wait.Round(time.Millisecond))
	return a.clock().Sleep(ctx, wait)
}

func (a *Agent) log() *slog.Logger {
	if a.Log == nil {
		return slog.Default()
	}
	return a.Log
}

func (a *Agent) clock() Clock {
	if a.Clock == nil {
		return SystemClock{}
	}
	return a.Clock
}

func (a *Agent) interval() time.Duration {
	if a.Interval > 0 {
		return a.Interval
	}
	return DefaultInterval
}

func (a *Agent) dedupeWindow() time.Duration {
	if a.DedupeWindow > 0 {
		return a.DedupeWindow
	}
	return DefaultDedupeWindow
}
