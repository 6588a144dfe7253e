package clusters

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/models"
)

// Status infos of cancel, reset and day 2 (upstream's texts).
const (
	infoCancelled        = "Installation was cancelled by user"
	infoHostCancelled    = "Installation cancelled by user"
	infoReset            = "Reset cluster installation"
	infoHostResetting    = "Resetting the host"
	infoHostResetPending = "Host requires booting into the discovery image to complete resetting the installation"
	infoAddingHosts      = "cluster is adding hosts to existing OCP cluster"
	infoDay2Installing   = "Installing a day-2 host"
)

// clusterMove applies a transition of cluster id computed from the model;
// plan returns nil (with an error) when the cluster cannot move.
func (s *Service) clusterMove(ctx context.Context, id string,
	plan func(m *engine.Model, c engine.Cluster) (*engine.InstallTransition, error)) (engine.Cluster, []engine.Host, error) {
	var (
		tr     *engine.InstallTransition
		before []engine.Host
		c      engine.Cluster
		err    error
	)
	s.store.Read(func(m *engine.Model) {
		if c, err = lookup(m, id); err != nil {
			return
		}
		before = slices.Collect(m.HostsOfCluster(id))
		tr, err = plan(m, c)
	})
	if err != nil {
		return c, nil, err
	}
	if _, err := s.store.Apply(ctx, tr); err != nil {
		return c, nil, fmt.Errorf("cluster %s: %w", id, err)
	}
	ch := tr.Cluster
	s.hosts.Event(ctx, engine.Event{Name: "cluster_status_updated", Severity: "info", ClusterID: id,
		Message: fmt.Sprintf("Updated status of the cluster to %s (%s)", ch.Status, ch.Info)})
	for _, hc := range tr.Hosts {
		if i := slices.IndexFunc(before, func(h engine.Host) bool { return h.ID == hc.ID }); i >= 0 && before[i].Status != hc.Status {
			h := before[i]
			s.hosts.Event(ctx, engine.Event{Name: "host_status_updated", Severity: "info", ClusterID: id, InfraEnvID: h.InfraEnvID,
				HostID: h.ID, Message: fmt.Sprintf("Host %s: updated status from %s to %s (%s)", s.hosts.HostName(h), h.Status, hc.Status, hc.Info)})
		}
	}
	return c, before, nil
}

// resettable are the cluster statuses reset accepts.
func resettable() []string {
	return append(engine.ClusterInstalling(), engine.ClusterStatusCancelled, engine.ClusterStatusError)
}

// resetHost sends h back to discovery: resetting (its agent re-registers)
// when its disk was not written, else resetting-pending-user-action (it
// must be booted into the discovery image, which its boot script now
// serves again).
func resetHost(h engine.Host) engine.HostChange {
	hc := engine.HostChange{ID: h.ID, Status: models.HostStatusResetting, Info: infoHostResetting, Reset: true,
		From: []string{h.Status}}
	written := engine.StageIndex(h.Progress.CurrentStage) >= engine.StageIndex(string(models.HostStageWritingImageToDisk))
	if written || h.Status == models.HostStatusInstalled || h.Progress.CurrentStage == string(models.HostStageFailed) {
		hc.Status, hc.Info = models.HostStatusResettingPendingUserAction, infoHostResetPending
	}
	return hc
}

// day2Ready refuses a host that is not a known worker of a cluster adding
// hosts with stored install configs.
func (s *Service) day2Ready(h engine.Host) error {
	var (
		c      engine.Cluster
		stored bool
	)
	s.store.Read(func(m *engine.Model) {
		c, _ = m.Cluster(h.ClusterID)
		_, stored = m.Secret(engine.InstallSecretName(h.ClusterID))
	})
	switch {
	case h.ClusterID == "" || c.Status != engine.ClusterStatusAddingHosts:
		return fmt.Errorf("%w: host %s: its cluster is %q, not adding-hosts (POST .../actions/allow-add-workers first)", hosts.ErrConflict, h.ID, c.Status)
	case h.Status != models.HostStatusKnown:
		return fmt.Errorf("%w: host %s is %s, not known", hosts.ErrConflict, h.ID, h.Status)
	case !h.Approved:
		return fmt.Errorf("%w: host %s is not approved", hosts.ErrConflict, h.ID)
	case h.Role == string(models.HostRoleMaster):
		return hosts.Invalid("host %s: day-2 hosts install as workers, not masters", h.ID)
	case !stored:
		return fmt.Errorf("%w: cluster %s has no install configs to add a worker from", hosts.ErrConflict, h.ClusterID)
	}
	return nil
}

// Cancel cancels the installation under way of cluster id: the cluster
// and its installing or installed hosts become cancelled, with their
// events.
func (s *Service) Cancel(ctx context.Context, id string) error {
	_, _, err := s.clusterMove(ctx, id, func(m *engine.Model, c engine.Cluster) (*engine.InstallTransition, error) {
		if !slices.Contains(engine.ClusterInstalling(), c.Status) {
			return nil, fmt.Errorf("%w: cluster %s is %s and cannot be cancelled: only an installation under way can", hosts.ErrConflict, id, c.Status)
		}
		tr := &engine.InstallTransition{ClusterID: id, Cluster: &engine.StatusChange{Status: engine.ClusterStatusCancelled,
			Info: infoCancelled, From: []string{c.Status}}}
		for h := range m.HostsOfCluster(id) {
			if slices.Contains(engine.HostInstalling(), h.Status) || h.Status == models.HostStatusInstalled {
				tr.Hosts = append(tr.Hosts, engine.HostChange{ID: h.ID, Status: models.HostStatusCancelled,
					Info: infoHostCancelled, From: []string{h.Status}})
			}
		}
		return tr, nil
	})
	return err
}

// Reset sends cluster id (installing, cancelled or failed) and its hosts
// back to discovery and drops its install artifacts.
func (s *Service) Reset(ctx context.Context, id string) error {
	_, _, err := s.clusterMove(ctx, id, func(m *engine.Model, c engine.Cluster) (*engine.InstallTransition, error) {
		if !slices.Contains(resettable(), c.Status) {
			return nil, fmt.Errorf("%w: cluster %s is %s and cannot be reset", hosts.ErrConflict, id, c.Status)
		}
		tr := &engine.InstallTransition{ClusterID: id, Cluster: &engine.StatusChange{Status: engine.ClusterStatusInsufficient,
			Info: infoReset, From: []string{c.Status}, Clear: true}}
		for h := range m.HostsOfCluster(id) {
			tr.Hosts = append(tr.Hosts, resetHost(h))
		}
		return tr, nil
	})
	if err != nil {
		return err
	}
	if _, err := s.store.Apply(ctx, &engine.DeleteSecret{Name: engine.InstallSecretName(id)}); err != nil && !errors.Is(err, engine.ErrNotFound) {
		return fmt.Errorf("delete install artifacts: %w", err)
	}
	return s.hosts.RefreshCluster(ctx, id)
}

// AllowAddWorkers moves installed cluster id to adding-hosts (day 2).
func (s *Service) AllowAddWorkers(ctx context.Context, id string) error {
	_, _, err := s.clusterMove(ctx, id, func(_ *engine.Model, c engine.Cluster) (*engine.InstallTransition, error) {
		if c.Status != engine.ClusterStatusInstalled {
			return nil, fmt.Errorf("%w: cluster %s is %s, not installed", hosts.ErrConflict, id, c.Status)
		}
		return &engine.InstallTransition{ClusterID: id, Cluster: &engine.StatusChange{Status: engine.ClusterStatusAddingHosts,
			Info: infoAddingHosts, From: []string{engine.ClusterStatusInstalled}}}, nil
	})
	return err
}

// InstallHost installs known host id of infra-env ie, of a cluster that
// takes day-2 hosts, as a worker, from the cluster's stored worker config.
func (s *Service) InstallHost(ctx context.Context, ie, id string) error {
	h, err := s.hosts.Host(ie, id)
	if err != nil {
		return err
	}
	if err := s.day2Ready(h); err != nil {
		return err
	}
	if err := s.PickDisks(ctx, h.ClusterID, id); err != nil {
		return err
	}
	_, err = s.store.Apply(ctx, &engine.InstallTransition{ClusterID: h.ClusterID, Hosts: []engine.HostChange{{
		ID: id, Status: models.HostStatusInstalling, Info: infoDay2Installing, From: []string{models.HostStatusKnown},
		Reset: true, Day2: true, Role: string(models.HostRoleWorker)}}})
	if err != nil {
		return fmt.Errorf("install host: %w", err)
	}
	s.hosts.Event(ctx, engine.Event{Name: "host_status_updated", Severity: "info", ClusterID: h.ClusterID, InfraEnvID: ie, HostID: id,
		Message: fmt.Sprintf("Host %s: updated status from %s to %s (%s)", s.hosts.HostName(h), h.Status, models.HostStatusInstalling, infoDay2Installing)})
	return nil
}

// Complete ends the installation of finalizing cluster id as an outside
// observer reports it: installed, or failed with errorInfo.
func (s *Service) Complete(ctx context.Context, id string, success bool, errorInfo string) error {
	_, _, err := s.clusterMove(ctx, id, func(_ *engine.Model, c engine.Cluster) (*engine.InstallTransition, error) {
		if c.Status != engine.ClusterStatusFinalizing {
			return nil, fmt.Errorf("%w: cluster %s is %s, not finalizing", hosts.ErrConflict, id, c.Status)
		}
		ch := &engine.StatusChange{Status: engine.ClusterStatusInstalled, Info: "Cluster is installed",
			From: []string{engine.ClusterStatusFinalizing}, Completed: true}
		if !success {
			ch.Status, ch.Info, ch.Completed = engine.ClusterStatusError, "Cluster installation failed: "+errorInfo, false
		}
		return &engine.InstallTransition{ClusterID: id, Cluster: ch}, nil
	})
	return err
}
