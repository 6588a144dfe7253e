package hosts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/engine/validation"
)

// HostFacts gathers what the host validations look at from the model.
func (s *Service) HostFacts(m *engine.Model, h engine.Host) validation.HostFacts {
	f := validation.HostFacts{
		ID: h.ID, Role: models.HostRole(h.Role), RequestedHostname: h.RequestedHostname,
		Status: h.Status, Inventory: s.inv.get(h), CheckedInAt: h.CheckedInAt, Now: s.now(),
		HostTime: h.HostTime, Connectivity: s.conn.lookup(h.ID, h.Connectivity),
		DiskSpeed: installDiskSpeed(h),
	}
	f.NTP, _ = decodeDoc[models.NtpSynchronizationResponse](h.NTPSources)
	f.DomainResolutions, _ = decodeDoc[models.DomainResolutionResponse](h.DomainResolutions)
	if ie, ok := m.InfraEnv(h.InfraEnvID); ok {
		f.NTPSourcesConfigured = len(ie.NTPSources) > 0
	}
	c, ok := m.Cluster(h.ClusterID)
	if !ok {
		return f
	}
	hc := &validation.HostCluster{
		Name: c.Name, BaseDomain: c.BaseDomain, MachineNetworks: c.MachineNetworks,
		ServiceNetworks: c.ServiceNetworks, SingleNode: c.ControlPlaneCount == 1,
		Day2: c.Status == engine.ClusterStatusAddingHosts || c.Status == engine.ClusterStatusInstalled,
	}
	for _, n := range c.ClusterNetworks {
		hc.ClusterNetworks = append(hc.ClusterNetworks, n.CIDR)
	}
	for o := range m.HostsOfCluster(c.ID) {
		hc.HostCount++
		if o.ID == h.ID {
			continue
		}
		if name := (validation.HostFacts{RequestedHostname: o.RequestedHostname, Inventory: s.inv.get(o)}).Hostname(); name != "" {
			hc.OtherHostnames = append(hc.OtherHostnames, name)
		}
	}
	hc.MajorityGroups, hc.IPCollisions = s.ClusterNets(m, c)
	f.Cluster = hc
	suggested := validation.SuggestRoles(s.ClusterFacts(m, c, nil), s.ClusterThresholds(m, c))
	f.SuggestedRole = suggested[h.ID]
	hc.Peers = s.peers(m, c, h.ID, suggested)
	return f
}

// peers are the hosts of c other than id with their effective hostname
// and role (requested, else suggested).
func (s *Service) peers(m *engine.Model, c engine.Cluster, id string, suggested map[string]models.HostRole) map[string]validation.Peer {
	out := map[string]validation.Peer{}
	for o := range m.HostsOfCluster(c.ID) {
		if o.ID == id {
			continue
		}
		p := validation.HostFacts{Role: models.HostRole(o.Role), SuggestedRole: suggested[o.ID],
			RequestedHostname: o.RequestedHostname, Inventory: s.inv.get(o)}
		out[o.ID] = validation.Peer{Hostname: p.Hostname(), Role: p.EffectiveRole()}
	}
	return out
}

// decodeDoc decodes a stored step output; nil when there is none or it
// does not decode (replies are checked before they are stored).
func decodeDoc[T any](raw json.RawMessage) (*T, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	return &v, nil
}

// ClusterFacts gathers what the cluster validations look at. With t, the
// roles of auto-assign hosts are the ones SuggestRoles gives them.
func (s *Service) ClusterFacts(m *engine.Model, c engine.Cluster, t *validation.Thresholds) validation.ClusterFacts {
	f := validation.ClusterFacts{
		Name: c.Name, BaseDomain: c.BaseDomain, PullSecretSet: c.PullSecretRef != "",
		ControlPlaneCount: c.ControlPlaneCount, MachineNetworks: c.MachineNetworks, NetworkType: c.NetworkType,
		// Single node has user-managed networking, as upstream forces.
		UserManagedNetworking: c.ControlPlaneCount == 1,
		ServiceNetworks:       c.ServiceNetworks, APIVips: c.APIVIPs, IngressVips: c.IngressVIPs,
	}
	for _, n := range c.ClusterNetworks {
		f.ClusterNetworks = append(f.ClusterNetworks, validation.ClusterNetwork{CIDR: n.CIDR, HostPrefix: n.HostPrefix})
	}
	for h := range m.HostsOfCluster(c.ID) {
		f.Hosts = append(f.Hosts, validation.ClusterHost{ID: h.ID, Status: h.Status,
			Role: models.HostRole(h.Role), Inventory: s.inv.get(h), HostTime: h.HostTime})
	}
	if t != nil {
		suggested := validation.SuggestRoles(f, *t)
		for i, h := range f.Hosts {
			if r, ok := suggested[h.ID]; ok {
				f.Hosts[i].Role = r
			}
		}
	}
	return f
}

// autoMachineNetwork sets the machine network of a cluster that has an
// API VIP but no machine network to the network of the host interface
// holding the VIP, as upstream calculates it.
func (s *Service) autoMachineNetwork(ctx context.Context, clusterID string) error {
	var cidr string
	s.store.Read(func(m *engine.Model) {
		c, ok := m.Cluster(clusterID)
		if !ok || len(c.MachineNetworks) > 0 || len(c.APIVIPs) == 0 {
			return
		}
		cidr, _ = validation.CalculateMachineCIDR(c.APIVIPs[0], s.ClusterFacts(m, c, nil).Hosts)
	})
	if cidr == "" {
		return nil
	}
	nets := []string{cidr}
	if _, err := s.store.Apply(ctx, &engine.UpdateCluster{ID: clusterID, Patch: engine.ClusterPatch{MachineNetworks: &nets}}); err != nil {
		return fmt.Errorf("set machine network of cluster %s: %w", clusterID, err)
	}
	s.Event(ctx, engine.Event{Name: "cluster_machine_network_set", Severity: "info", ClusterID: clusterID,
		Message: fmt.Sprintf("Machine network of the cluster set to %s (from the API VIP)", cidr)})
	return nil
}

// hostVerdict is the outcome of evaluating a host.
type hostVerdict struct {
	validations []engine.Validation
	status      string
	info        string
	move        bool // the status or its info changes
}

// evaluateHost runs the host validations on the model's view of host id.
func (s *Service) evaluateHost(id string) (engine.Host, hostVerdict, bool) {
	var (
		h  engine.Host
		v  hostVerdict
		ok bool
	)
	s.store.Read(func(m *engine.Model) {
		if h, ok = m.Host(id); !ok {
			return
		}
		rs := validation.ValidateHost(s.HostFacts(m, h), s.HostThresholds(m, h))
		for _, r := range rs {
			if !r.Hidden {
				v.validations = append(v.validations, engine.Validation{ID: string(r.ID),
					Category: string(r.Category), Status: string(r.Status), Message: r.Message})
			}
		}
		st, info, moved := validation.HostStatus(h.Status, h.ClusterID != "", rs)
		v.status, v.info = st, info
		v.move = moved && (st != h.Status || info != h.StatusInfo)
	})
	return h, v, ok
}

// Refresh re-evaluates host id, stores its validations and status and
// records a status change as an event; then its cluster's status.
func (s *Service) Refresh(ctx context.Context, id string) error {
	var clusterID string
	s.store.Read(func(m *engine.Model) {
		h, _ := m.Host(id)
		clusterID = h.ClusterID
	})
	if clusterID != "" {
		if err := s.autoMachineNetwork(ctx, clusterID); err != nil {
			return err
		}
	}
	h, v, ok := s.evaluateHost(id)
	if !ok {
		return fmt.Errorf("%w: host %s", ErrNotFound, id)
	}
	var vals *[]engine.Validation
	if !slices.Equal(v.validations, h.Validations) {
		vals = &v.validations
	}
	switch {
	case v.move:
		// The validations, the status they lead to and its event: one entry.
		move := &engine.SetHostStatus{ID: id, Status: v.status, StatusInfo: v.info, From: []string{h.Status}, Validations: vals}
		if v.status != h.Status {
			move.Event = &engine.Event{Name: "host_status_updated", Severity: SeverityOf(v.status),
				Message: fmt.Sprintf("Host %s: updated status from %s to %s (%s)", s.HostName(h), h.Status, v.status, v.info)}
		}
		_, err := s.store.Apply(ctx, move)
		if errors.Is(err, engine.ErrConflict) {
			return nil // someone else moved it first; they evaluated too
		}
		if err != nil {
			return fmt.Errorf("set status of host %s: %w", id, err)
		}
	case vals != nil:
		if _, err := s.store.Apply(ctx, &engine.UpdateHost{ID: id, Patch: engine.HostPatch{Validations: vals}}); err != nil {
			return fmt.Errorf("store validations of host %s: %w", id, err)
		}
	}
	return s.RefreshCluster(ctx, h.ClusterID)
}

// RefreshCluster re-evaluates a cluster's status ("" : nothing to do).
func (s *Service) RefreshCluster(ctx context.Context, id string) error {
	if id == "" {
		return nil
	}
	var (
		c            engine.Cluster
		st, info     string
		ok, movement bool
	)
	s.store.Read(func(m *engine.Model) {
		if c, ok = m.Cluster(id); !ok {
			return
		}
		t := s.ClusterThresholds(m, c)
		rs := validation.ValidateCluster(s.ClusterFacts(m, c, &t), t)
		st, info, movement = validation.ClusterStatus(c.Status, rs)
	})
	if !ok || !movement || (st == c.Status && info == c.StatusInfo) {
		return nil
	}
	_, err := s.store.Apply(ctx, &engine.SetClusterStatus{ID: id, Status: st, StatusInfo: info, From: []string{c.Status}})
	if errors.Is(err, engine.ErrConflict) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("set status of cluster %s: %w", id, err)
	}
	if st != c.Status {
		s.Event(ctx, engine.Event{Name: "cluster_status_updated", Severity: "info", ClusterID: id,
			Message: fmt.Sprintf("Updated status of the cluster to %s", st)})
	}
	return nil
}

// SeverityOf is the severity of the event of a host moving to status.
func SeverityOf(status string) string {
	switch status {
	case models.HostStatusInsufficient, models.HostStatusInsufficientUnbound,
		models.HostStatusDisconnected, models.HostStatusDisconnectedUnbound:
		return "warning"
	}
	return "info"
}
