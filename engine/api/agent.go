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
	"time"
	"unicode"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/clusters"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/engine/validation"
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

// installingStatuses are the host statuses in which registering again
// would lose an installation in progress: registration is refused (409).
func installingStatuses() []string {
	return []string{models.HostStatusPreparingForInstallation, models.HostStatusPreparingSuccessful,
		models.HostStatusInstalling, models.HostStatusInstallingInProgress,
		models.HostStatusInstallingPendingUserAction, models.HostStatusInstalled,
		models.HostStatusBinding, models.HostStatusUnbinding}
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
	ie, err := s.infraEnv(ieID)
	if err != nil {
		return err
	}
	var (
		old    engine.Host
		exists bool
	)
	s.store.Read(func(m *engine.Model) { old, exists = m.Host(p.HostID) })
	if exists && old.InfraEnvID != ieID {
		return fmt.Errorf("%w: host %s is registered in another infra-env", ErrConflict, p.HostID)
	}
	if exists {
		if done, err := s.clusters.ReRegistered(r.Context(), old); err != nil || done {
			if err != nil {
				return err
			}
			return s.writeRegistration(w, ieID, old.ID, version)
		}
	}
	if exists && slices.Contains(installingStatuses(), old.Status) {
		return fmt.Errorf("%w: host %s is %s and cannot register again", ErrConflict, p.HostID, old.Status)
	}
	if err := s.acceptRegistration(ie.ClusterID, old.ClusterID); err != nil {
		return err
	}
	status := models.HostStatusDiscoveringUnbound
	if ie.ClusterID != "" || old.ClusterID != "" {
		status = models.HostStatusDiscovering
	}
	h := engine.Host{ID: p.HostID, InfraEnvID: ieID, Status: status,
		StatusInfo: validation.StatusInfoDiscovering, AgentVersion: version}
	ctx := r.Context()
	s.hosts.ForgetSteps(p.HostID)
	registered := &engine.Event{Name: "host_registration_succeeded", Severity: "info",
		Message: fmt.Sprintf("Host %s: Successfully registered", h.ID), Props: requestProps(r)}
	res, err := s.store.Apply(ctx, &engine.RegisterHost{Host: h, Event: registered})
	if err != nil {
		return fmt.Errorf("register host: %w", err)
	}
	h, _ = res.(engine.Host)
	s.log.InfoContext(ctx, "host registered", "host", h.ID, "infra_env", ieID, "agent_version", version)
	if err := s.hosts.Refresh(ctx, h.ID); err != nil {
		return err
	}
	return s.writeRegistration(w, ieID, h.ID, version)
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
	now := s.now()
	if _, err := s.store.Apply(ctx, &engine.UpdateHost{ID: id, InfraEnvID: ieID,
		Patch: engine.HostPatch{CheckedInAt: &now, HostTime: hostTime}}); err != nil {
		return fmt.Errorf("check in host: %w", err)
	}
	// A host coming back, or a clock that moved, may change its status
	// now rather than at the monitor's next pass.
	if h.Status == models.HostStatusDisconnected || h.Status == models.HostStatusDisconnectedUnbound ||
		hostTime != nil && clockVerdictMoved(h.HostTime, *hostTime, now) {
		if err := s.hosts.Refresh(ctx, id); err != nil {
			return err
		}
	}
	steps := models.Steps{Instructions: []*models.Step{}, NextInstructionSeconds: pollSeconds(h.Status),
		PostStepAction: models.PostStepActionContinue}
	if h.Status == models.HostStatusResetting {
		// A reset host registers again and starts over in discovery.
		steps.PostStepAction = models.PostStepActionExit
		writeJSON(w, http.StatusOK, steps)
		return nil
	}
	if s.hosts.InventoryDue(h, now) {
		steps.Instructions = append(steps.Instructions, &models.Step{
			StepType: models.StepTypeInventory, StepID: hosts.StepID(models.StepTypeInventory), Args: []string{id}})
	}
	periodic, err := s.hosts.PeriodicSteps(h)
	if err != nil {
		return err
	}
	steps.Instructions = append(steps.Instructions, periodic...)
	speed, err := s.hosts.DiskSpeedStep(h, now)
	if err != nil {
		return err
	}
	if speed != nil {
		steps.Instructions = append(steps.Instructions, speed)
	}
	inst, err := s.installStep(ctx, h)
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
		s.log.WarnContext(ctx, "step failed", "host", id, "step_type", reply.StepType, "step_id", reply.StepID,
			"exit_code", reply.ExitCode)
		s.hosts.Event(ctx, engine.Event{Name: "host_step_failed", Severity: "warning", ClusterID: h.ClusterID,
			InfraEnvID: ieID, HostID: id, Message: fmt.Sprintf("Host %s: step %s (%s) failed with exit code %d",
				s.hosts.HostName(h), reply.StepType, reply.StepID, reply.ExitCode)})
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

// clockVerdictMoved reports whether the host's clock, reported as next
// instead of prev, lands on the other side of the service's tolerance
// (time-synced-between-host-and-service).
func clockVerdictMoved(prev, next int64, now time.Time) bool {
	ok := func(ts int64) bool {
		if ts == 0 {
			return false
		}
		return validation.ValidateHost(validation.HostFacts{HostTime: ts, Now: now}, validation.DefaultThresholds()).
			Passed(validation.HostTimeSyncedWithService)
	}
	return prev == 0 || ok(prev) != ok(next)
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
	ctx := r.Context()
	if bytes.Equal(compact.Bytes(), h.Inventory) {
		return nil // a periodic refresh that found nothing new: nothing to write
	}
	now := s.now()
	patch := engine.HostPatch{Inventory: json.RawMessage(compact.Bytes()), CheckedInAt: &now}
	if disk := s.hosts.DefaultDisk(h, compact.Bytes()); disk != "" {
		patch.InstallationDiskID = &disk
	}
	update := &engine.UpdateHost{ID: h.ID, InfraEnvID: h.InfraEnvID, Patch: patch}
	if len(h.Inventory) == 0 {
		update.Event = &engine.Event{Name: "host_inventory_received", Severity: "info",
			Message: fmt.Sprintf("Host %s: inventory received", h.ID)}
	}
	if _, err := s.store.Apply(ctx, update); err != nil {
		return fmt.Errorf("store inventory: %w", err)
	}
	s.log.InfoContext(ctx, "inventory received", "host", h.ID, "infra_env", h.InfraEnvID, "bytes", compact.Len())
	return s.hosts.Refresh(ctx, h.ID)
}

// acceptRegistration refuses hosts while their cluster installs, as
// upstream (409): only a cluster that is still being assembled takes
// (re-)registrations.
func (s *server) acceptRegistration(clusterIDs ...string) error {
	for _, id := range clusterIDs {
		if id == "" {
			continue
		}
		var c engine.Cluster
		s.store.Read(func(m *engine.Model) { c, _ = m.Cluster(id) })
		switch c.Status {
		case "", validation.ClusterStatusInsufficient, validation.ClusterStatusReady,
			validation.ClusterStatusPendingForInput, "adding-hosts":
		default:
			return fmt.Errorf("%w: cluster %s is %s and accepts no host registration", ErrConflict, id, c.Status)
		}
	}
	return nil
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
