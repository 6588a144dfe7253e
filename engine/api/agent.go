package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/clusters"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/models"
)

// agentVersionHeader is the header the upstream agent sends its version in.
const agentVersionHeader = "discovery_agent_version"

// maxAgentVersion bounds the agent version kept on a host.
const maxAgentVersion = 256

// requestProps are the event properties of a request: its X-Request-Id
// when it is a short printable string.
func requestProps(r *http.Request) map[string]string {
	id := r.Header.Get("X-Request-Id")
	if id == "" || len(id) > 128 || strings.ContainsFunc(id, func(c rune) bool { return c < 0x21 || c > 0x7e }) {
		return nil
	}
	return map[string]string{"request_id": id}
}

func (s *server) registerHost(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	ieID := r.PathValue("infra_env_id")
	var p models.HostCreateParams
	if err := decode(w, r, maxBody, &p); err != nil {
		return err
	}
	if err := clusters.CheckUUID("host_id", p.HostID); err != nil {
		return err
	}
	version := p.DiscoveryAgentVersion
	if version == "" {
		version = r.Header.Get(agentVersionHeader)
	}
	if len(version) > maxAgentVersion || strings.ContainsFunc(version, unicode.IsControl) {
		return badRequest("discovery_agent_version is longer than %d bytes or holds control characters", maxAgentVersion)
	}
	if err := s.hosts.Register(r.Context(), ieID, p.HostID, version, requestProps(r)); err != nil {
		return err
	}
	return s.writeRegistration(w, ieID, p.HostID, version)
}

func (s *server) writeRegistration(w http.ResponseWriter, ieID, id, version string) error {
	h, err := s.hosts.Host(ieID, id)
	if err != nil {
		return err
	}
	arg, err := json.Marshal(models.NextStepCmdRequest{AgentVersion: version, HostID: id, InfraEnvID: ieID})
	if err != nil {
		return fmt.Errorf("encode next step command: %w", err)
	}
	writeJSON(w, http.StatusCreated, models.HostRegistrationResponse{
		Host: s.hostOut(h).Host,
		NextStepRunnerCommand: &models.NextStepRunnerCommand{Args: []string{string(arg)},
			Command: nextStepRunnerCommand, RetrySeconds: DefaultRunnerRetrySecs},
	})
	return nil
}

func (s *server) nextSteps(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	ieID, id := r.PathValue("infra_env_id"), r.PathValue("host_id")
	h, err := s.hosts.Host(ieID, id)
	if err != nil {
		return err
	}
	hostTime, err := timestampParam(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	if err := s.hosts.CheckIn(ctx, h, hostTime); err != nil {
		return err
	}
	steps := models.Steps{Instructions: []*models.Step{}, NextInstructionSeconds: pollSeconds(h.Status),
		PostStepAction: models.PostStepActionContinue}
	if h.Status == models.HostStatusResetting {
		// A reset host registers again and starts over in discovery.
		steps.PostStepAction = models.PostStepActionExit
		writeJSON(w, http.StatusOK, steps)
		return nil
	}
	due, err := s.hosts.NextSteps(h)
	if err != nil {
		return err
	}
	steps.Instructions = append(steps.Instructions, due...)
	inst, err := s.downloads.InstallStep(ctx, h)
	if err != nil {
		return err
	}
	if inst != nil {
		steps.Instructions = append(steps.Instructions, inst)
	}
	writeJSON(w, http.StatusOK, steps)
	return nil
}

func (s *server) stepReply(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	ieID, id := r.PathValue("infra_env_id"), r.PathValue("host_id")
	var reply models.StepReply
	if err := decode(w, r, maxReplyBody, &reply); err != nil {
		return err
	}
	if reply.StepType == "" || !slices.Contains(models.StepTypes(), reply.StepType) {
		return badRequest("step_type %q is not a step type", hosts.Clip(string(reply.StepType)))
	}
	h, err := s.hosts.Host(ieID, id)
	if err != nil {
		return err
	}
	ctx := r.Context()
	if reply.StepType == models.StepTypeInstallationDiskSpeedCheck {
		// Recorded failed or not, as upstream: a failure is the finding.
		if err := s.storeDiskSpeed(ctx, h, reply); err != nil {
			return err
		}
	}
	if reply.ExitCode != 0 {
		s.hosts.StepFailed(ctx, h, reply.StepType, reply.StepID, reply.ExitCode)
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	if reply.StepType == models.StepTypeInventory {
		if err := s.storeInventory(r, h, reply.Output); err != nil {
			return err
		}
	} else if err := s.storeStepResult(ctx, h, reply.StepType, reply.Output); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// timestampParam is the agent's clock from ?timestamp= (unix seconds);
// nil when absent.
func timestampParam(r *http.Request) (*int64, error) {
	v := r.URL.Query().Get("timestamp")
	if v == "" {
		return nil, nil
	}
	ts, err := strconv.ParseInt(v, 10, 64)
	if err != nil || ts <= 0 {
		return nil, badRequest("timestamp %q is not a positive number of seconds", hosts.Clip(v))
	}
	return &ts, nil
}

// storeInventory stores an inventory reply on h, picks its installation
// disk if it has none, and re-evaluates it.
func (s *server) storeInventory(r *http.Request, h engine.Host, output string) error {
	var inv models.Inventory
	if err := decodeBytes([]byte(output), &inv); err != nil {
		return badRequest("inventory output: %v", err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(output)); err != nil {
		return badRequest("inventory output is not JSON")
	}
	return s.hosts.StoreInventory(r.Context(), h, compact.Bytes())
}

// InstallPollSeconds is the poll interval of a host whose installation is
// being prepared or has started: its install step (and, for a BMH, the
// controller's reset at Rebooting) should not wait for a 60 s poll.
const InstallPollSeconds = 5

// pollSeconds is the next_instruction_seconds for a host in status.
func pollSeconds(status string) int64 {
	switch status {
	case models.HostStatusPreparingForInstallation, models.HostStatusPreparingSuccessful,
		models.HostStatusInstalling, models.HostStatusInstallingInProgress:
		return InstallPollSeconds
	}
	return DefaultPollSeconds
}

// storeStepResult checks the output of a periodic step and has the domain
// keep it (outputs of other step types are not kept).
func (s *server) storeStepResult(ctx context.Context, h engine.Host, t models.StepType, output string) error {
	doc := hosts.StepOutput(t)
	if doc == nil {
		return nil
	}
	if err := decodeBytes([]byte(output), doc); err != nil {
		return badRequest("%s output: %v", t, err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(output)); err != nil {
		return badRequest("%s output is not JSON", t)
	}
	return s.hosts.StoreStepResult(ctx, h, t, compact.Bytes())
}

// storeDiskSpeed checks an installation-disk-speed-check reply (no path:
// the host's installation disk) and has the domain record it.
func (s *server) storeDiskSpeed(ctx context.Context, h engine.Host, reply models.StepReply) error {
	var out models.DiskSpeedCheckResponse
	if reply.Output != "" {
		if err := decodeBytes([]byte(reply.Output), &out); err != nil {
			return badRequest("%s output: %v", reply.StepType, err)
		}
	}
	if out.Path == "" {
		out.Path = hosts.InstallationDisk(h)
	}
	if out.Path == "" || len(out.Path) > 4096 {
		return badRequest("%s output names no disk", reply.StepType)
	}
	return s.hosts.StoreDiskSpeed(ctx, h, reply.ExitCode, out)
}
