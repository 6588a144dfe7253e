package hosts

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/engine/validation"
)

// DefaultStepInterval is how long a host is not handed the same
// connectivity-check, ntp-synchronizer or domain-resolution step again
// when its arguments did not change. It is a little less than the poll
// interval (the REST API's DefaultPollSeconds, 60), so an agent polling at
// that pace runs them on every poll, as upstream's do; agents that poll faster do not run them faster.
const DefaultStepInterval = 50 * time.Second

// stepSchedule remembers when each host was last handed each periodic step
// and with which arguments. It is the handler's memory only: a new leader
// hands every step out once more.
type stepSchedule struct {
	mu   sync.Mutex
	sent map[stepKey]sentStep
}

type stepKey struct {
	host string
	typ  models.StepType
}

type sentStep struct {
	args string
	at   time.Time
}

// due reports whether host should run step typ with args at now: never
// handed out, other arguments, or handed out at least every ago. A due step
// is remembered as handed out.
func (s *stepSchedule) due(host string, typ models.StepType, args string, now time.Time, every time.Duration) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := stepKey{host, typ}
	if last, ok := s.sent[k]; ok && last.args == args && now.Sub(last.at) < every && !now.Before(last.at) {
		return false
	}
	if s.sent == nil || len(s.sent) >= maxCachedDocs {
		s.sent = map[stepKey]sentStep{}
	}
	s.sent[k] = sentStep{args: args, at: now}
	return true
}

// forget drops what host was handed (its agent registered again).
func (s *stepSchedule) forget(host string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range append(PeriodicStepTypes(), models.StepTypeInventory) {
		delete(s.sent, stepKey{host, t})
	}
}

// PeriodicStepTypes are the steps whose outputs hosts keep, in the order
// they are handed out.
func PeriodicStepTypes() []models.StepType {
	return []models.StepType{models.StepTypeConnectivityCheck, models.StepTypeNtpSynchronizer,
		models.StepTypeDomainResolution}
}

// stepRequest is one periodic step with its single argument.
type stepRequest struct {
	typ  models.StepType
	args any
}

// stepRequests lists the periodic steps h should run: connectivity-check
// towards the other hosts of its cluster and domain-resolution of the
// cluster's names (bound hosts only), ntp-synchronizer with its
// infra-env's NTP sources (every host; the agent adds the appliance's
// clock).
func (s *Service) stepRequests(m *engine.Model, h engine.Host) []stepRequest {
	var out []stepRequest
	c, bound := m.Cluster(h.ClusterID)
	if bound {
		out = append(out, stepRequest{models.StepTypeConnectivityCheck, s.connectivityParams(m, h)})
	}
	ie, _ := m.InfraEnv(h.InfraEnvID)
	out = append(out, stepRequest{models.StepTypeNtpSynchronizer,
		models.NtpSynchronizationRequest{NtpSource: strings.Join(ie.NTPSources, ",")}})
	if names := validation.DomainsToResolve(c.Name, c.BaseDomain); bound && len(names) > 0 {
		req := models.DomainResolutionRequest{Domains: []models.DomainResolutionRequestDomain{}}
		for _, n := range names {
			req.Domains = append(req.Domains, models.DomainResolutionRequestDomain{DomainName: n})
		}
		out = append(out, stepRequest{models.StepTypeDomainResolution, req})
	}
	return out
}

// connectivityParams lists the other hosts of h's cluster that sent an
// inventory, with their NICs' MACs and addresses (CIDRs, as upstream).
func (s *Service) connectivityParams(m *engine.Model, h engine.Host) models.ConnectivityCheckParams {
	out := models.ConnectivityCheckParams{}
	for o := range m.HostsOfCluster(h.ClusterID) {
		if o.ID == h.ID {
			continue
		}
		inv := s.inv.get(o)
		if inv == nil {
			continue
		}
		ch := &models.ConnectivityCheckHost{HostID: o.ID, Nics: []*models.ConnectivityCheckNic{}}
		for _, i := range inv.Interfaces {
			if i == nil || len(i.IPV4Addresses)+len(i.IPV6Addresses) == 0 {
				continue
			}
			addrs := append(slices.Clone(i.IPV4Addresses), i.IPV6Addresses...)
			ch.Nics = append(ch.Nics, &models.ConnectivityCheckNic{IPAddresses: addrs, Mac: i.MacAddress, Name: i.Name})
		}
		if len(ch.Nics) > 0 {
			out = append(out, ch)
		}
	}
	return out
}

// PeriodicSteps returns the periodic steps due for h now.
func (s *Service) PeriodicSteps(h engine.Host) ([]*models.Step, error) {
	if !slices.Contains(MonitoredStatuses(), h.Status) {
		return nil, nil
	}
	var reqs []stepRequest
	s.store.Read(func(m *engine.Model) { reqs = s.stepRequests(m, h) })
	now := s.now()
	var out []*models.Step
	for _, r := range reqs {
		b, err := json.Marshal(r.args)
		if err != nil {
			return nil, fmt.Errorf("encode %s arguments: %w", r.typ, err)
		}
		if s.steps.due(h.ID, r.typ, string(b), now, s.stepEvery) {
			out = append(out, &models.Step{StepType: r.typ, StepID: StepID(r.typ), Args: []string{string(b)}})
		}
	}
	return out, nil
}

// StepOutput returns a new value of the document that the output of a
// periodic step of type t decodes into, to check the output with; nil when
// hosts keep no output of t.
func StepOutput(t models.StepType) any {
	switch t {
	case models.StepTypeNtpSynchronizer:
		return &models.NtpSynchronizationResponse{}
	case models.StepTypeDomainResolution:
		return &models.DomainResolutionResponse{}
	case models.StepTypeConnectivityCheck:
		return &models.ConnectivityReport{}
	}
	return nil
}

// StoreStepResult keeps output, the compacted JSON output of a periodic
// step of type t that the caller checked (StepOutput), on h when it
// changed, and re-evaluates h; a new connectivity report re-evaluates the
// cluster's other hosts as well when it changes the majority groups. The
// outputs of other step types are not kept.
func (s *Service) StoreStepResult(ctx context.Context, h engine.Host, t models.StepType, output json.RawMessage) error {
	var (
		old   json.RawMessage
		patch engine.HostPatch
	)
	switch t {
	case models.StepTypeNtpSynchronizer:
		old, patch.NTPSources = h.NTPSources, output
	case models.StepTypeDomainResolution:
		old, patch.DomainResolutions = h.DomainResolutions, output
	case models.StepTypeConnectivityCheck:
		old, patch.Connectivity = h.Connectivity, output
	default:
		return nil
	}
	if bytes.Equal(output, old) {
		return nil
	}
	before := s.majorityOf(h.ClusterID)
	if _, err := s.store.Apply(ctx, &engine.UpdateHost{ID: h.ID, InfraEnvID: h.InfraEnvID, Patch: patch}); err != nil {
		return fmt.Errorf("store %s output: %w", t, err)
	}
	s.log.DebugContext(ctx, "step result stored", "host", h.ID, "step_type", t, "bytes", len(output))
	if err := s.Refresh(ctx, h.ID); err != nil {
		return err
	}
	if t != models.StepTypeConnectivityCheck || equalGroups(before, s.majorityOf(h.ClusterID)) {
		return nil
	}
	return s.refreshOthers(ctx, h)
}

// ForgetSteps drops what host was handed (its agent registered again), so
// that every periodic step is due again.
func (s *Service) ForgetSteps(host string) { s.steps.forget(host) }

// refreshOthers re-evaluates the hosts of h's cluster other than h.
func (s *Service) refreshOthers(ctx context.Context, h engine.Host) error {
	var ids []string
	s.store.Read(func(m *engine.Model) {
		for o := range m.HostsOfCluster(h.ClusterID) {
			if o.ID != h.ID {
				ids = append(ids, o.ID)
			}
		}
	})
	for _, id := range ids {
		if err := s.Refresh(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

// majorityOf returns the majority groups of cluster id (nil: none).
func (s *Service) majorityOf(id string) map[string][]string {
	var groups map[string][]string
	s.store.Read(func(m *engine.Model) {
		if c, ok := m.Cluster(id); ok {
			groups, _ = s.ClusterNets(m, c)
		}
	})
	return groups
}

func equalGroups(a, b map[string][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || !slices.Equal(v, w) {
			return false
		}
	}
	return true
}

// InventoryDue reports whether h is handed the inventory step now: always
// while it has none, and, as upstream's instruction manager does, again at
// every step interval in every status it hands the inventory out in
// (discovering, insufficient, known, pending-for-input, disconnected,
// bound or not: monitoredStatuses), so that hardware changed under a
// waiting or ready host (a disk added or pulled) is seen. An unchanged
// inventory is not written again (storeInventory).
func (s *Service) InventoryDue(h engine.Host, now time.Time) bool {
	if !slices.Contains(MonitoredStatuses(), h.Status) {
		return len(h.Inventory) == 0
	}
	due := s.steps.due(h.ID, models.StepTypeInventory, h.ID, now, s.stepEvery)
	return due || len(h.Inventory) == 0
}
