package hosts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rackboot/rackboot/boot/installerargs"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/engine/validation"
	"github.com/rackboot/rackboot/ipxe"
)

// Host returns host id of infra-env ie (404 for a host of another one).
func (s *Service) Host(ie, id string) (engine.Host, error) {
	var (
		h  engine.Host
		ok bool
	)
	s.store.Read(func(m *engine.Model) { h, ok = m.Host(id) })
	if !ok || h.InfraEnvID != ie {
		return h, fmt.Errorf("%w: host %s in infra-env %s", ErrNotFound, id, ie)
	}
	return h, nil
}

// HostRoles are the roles a user may ask for.
func HostRoles() []string {
	return []string{string(models.HostRoleAutoAssign), string(models.HostRoleMaster),
		string(models.HostRoleWorker), string(models.HostRoleArbiter)}
}

// ChangeHost checks p and updates host id of infra-env ie, with its
// event, and re-evaluates it; bad input writes nothing.
func (s *Service) ChangeHost(ctx context.Context, ie, id string, p models.HostUpdateParams) error {
	h, err := s.Host(ie, id)
	if err != nil {
		return err
	}
	patch, changes, err := s.hostPatch(h, p)
	if err != nil {
		return err
	}
	if _, err := s.store.Apply(ctx, &engine.UpdateHost{ID: id, InfraEnvID: ie, Patch: patch}); err != nil {
		return fmt.Errorf("update host: %w", err)
	}
	if len(changes) > 0 {
		s.Event(ctx, engine.Event{Name: "host_updated", Severity: "info", ClusterID: h.ClusterID, InfraEnvID: ie,
			HostID: id, Message: fmt.Sprintf("Host %s: %s", s.HostName(h), strings.Join(changes, ", "))})
	}
	return s.Refresh(ctx, id)
}

// hostPatch checks p against h and returns the engine patch and a
// description of each change.
func (s *Service) hostPatch(h engine.Host, p models.HostUpdateParams) (engine.HostPatch, []string, error) {
	var (
		patch   engine.HostPatch
		changes []string
	)
	if p.HostRole != nil {
		if !slices.Contains(HostRoles(), *p.HostRole) {
			return patch, nil, Invalid("host_role %q is not one of %s", Clip(*p.HostRole), strings.Join(HostRoles(), ", "))
		}
		patch.Role = p.HostRole
		changes = append(changes, "role set to "+*p.HostRole)
	}
	if p.HostName != nil {
		if err := CheckHostname(*p.HostName); err != nil {
			return patch, nil, err
		}
		patch.RequestedHostname = p.HostName
		changes = append(changes, "hostname set to "+*p.HostName)
	}
	if p.IgnitionConfigOverrides != nil {
		if err := CheckOverride(*p.IgnitionConfigOverrides); err != nil {
			return patch, nil, err
		}
		patch.IgnitionOverride = p.IgnitionConfigOverrides
		changes = append(changes, "ignition config overrides set")
	}
	if p.Approved != nil {
		patch.Approved = p.Approved
		changes = append(changes, fmt.Sprintf("approved set to %t", *p.Approved))
	}
	for _, d := range p.DisksSelectedConfig {
		if d.ID == nil || *d.ID == "" {
			return patch, nil, Invalid("disks_selected_config: id is required")
		}
		if d.Role != "install" && d.Role != "none" {
			return patch, nil, Invalid("disks_selected_config: role %q is not install or none", Clip(d.Role))
		}
		if d.Role != "install" {
			continue
		}
		if err := s.checkDisk(h, *d.ID); err != nil {
			return patch, nil, err
		}
		patch.InstallationDiskID = d.ID
		changes = append(changes, "installation disk set to "+*d.ID)
	}
	return patch, changes, nil
}

// CheckHostname accepts a hostname that upstream accepts and that cannot
// inject iPXE commands.
func CheckHostname(name string) error {
	if !validation.HostnameValid(name) {
		return Invalid("host_name %q is not a valid hostname (%s)", Clip(name), validation.HostnamePattern)
	}
	if err := ipxe.CheckHostname(name); err != nil {
		return Invalid("host_name %q: %v", Clip(name), err)
	}
	return nil
}

// checkDisk accepts an eligible disk of h's inventory.
func (s *Service) checkDisk(h engine.Host, diskID string) error {
	var eligible []*models.Disk
	var all []*models.Disk
	s.store.Read(func(m *engine.Model) {
		all, eligible = s.HostFacts(m, h).InstallationDisks(s.HostThresholds(m, h))
	})
	if len(all) == 0 {
		return fmt.Errorf("%w: host %s has not reported its disks yet", ErrConflict, h.ID)
	}
	for _, d := range eligible {
		if d.ID == diskID {
			return nil
		}
	}
	for _, d := range all {
		if d.ID == diskID {
			return Invalid("disk %s is not eligible for installation: %s", Clip(diskID),
				strings.Join(d.InstallationEligibility.NotEligibleReasons, "; "))
		}
	}
	return Invalid("host %s has no disk %q", h.ID, Clip(diskID))
}

// Deregister deletes host id of infra-env ie, with its event, and
// re-evaluates its cluster.
func (s *Service) Deregister(ctx context.Context, ie, id string) error {
	h, err := s.Host(ie, id)
	if err != nil {
		return err
	}
	if _, err := s.store.Apply(ctx, &engine.DeleteHost{ID: id, InfraEnvID: ie}); err != nil {
		return fmt.Errorf("delete host: %w", err)
	}
	s.Event(ctx, engine.Event{Name: "host_deregistered", Severity: "info", ClusterID: h.ClusterID,
		InfraEnvID: ie, HostID: id, Message: fmt.Sprintf("Host %s: deregistered", s.HostName(h))})
	return s.RefreshCluster(ctx, h.ClusterID)
}

// Bind binds host id of infra-env ie to cluster clusterID, with its
// event, and re-evaluates the host.
func (s *Service) Bind(ctx context.Context, ie, id, clusterID string) error {
	env, err := s.InfraEnv(ie)
	if err != nil {
		return err
	}
	h, err := s.Host(ie, id)
	if err != nil {
		return err
	}
	if err := s.CheckClusterArch(clusterID, env.CPUArchitecture); err != nil {
		return err
	}
	if _, err := s.store.Apply(ctx, &engine.BindHost{ID: id, ClusterID: clusterID}); err != nil {
		return fmt.Errorf("bind host: %w", err)
	}
	if h.ClusterID != clusterID {
		s.Event(ctx, engine.Event{Name: "host_bind_succeeded", Severity: "info", ClusterID: clusterID,
			InfraEnvID: ie, HostID: id, Message: fmt.Sprintf("Host %s: bound to cluster %s", s.HostName(h), clusterID)})
	}
	return s.Refresh(ctx, id)
}

// infoUnbinding is upstream's status info of a host being unbound.
const infoUnbinding = "Host is waiting to be unbound from the cluster"

// unbindPendingFrom are the host statuses from which upstream's unbind
// moves a host to unbinding-pending-user-action: it runs what was
// installed (or failed to) and must boot the discovery image again to
// register anew.
var unbindPendingFrom = []string{models.HostStatusInstalled, models.HostStatusError, models.HostStatusCancelled,
	models.HostStatusAddedToExistingCluster}

// Unbind unbinds host id of infra-env ie from its cluster, with its
// event, and re-evaluates the host and the cluster; a host past its
// installation is unbinding-pending-user-action, as upstream's, until it
// registers again, and loses what the installation left on it
// (engine.UnbindHost's Reset).
func (s *Service) Unbind(ctx context.Context, ie, id string) error {
	h, err := s.Host(ie, id)
	if err != nil {
		return err
	}
	env, err := s.InfraEnv(ie)
	if err != nil {
		return err
	}
	if env.ClusterID != "" {
		return fmt.Errorf("%w: host %s: infra-env %s is bound to cluster %s", ErrConflict, id, ie, env.ClusterID)
	}
	reset := h.ClusterID != "" && slices.Contains(unbindPendingFrom, h.Status)
	if _, err := s.store.Apply(ctx, &engine.UnbindHost{ID: id, Reset: reset}); err != nil {
		return fmt.Errorf("unbind host: %w", err)
	}
	if h.ClusterID != "" {
		s.Event(ctx, engine.Event{Name: "host_unbind_succeeded", Severity: "info", ClusterID: h.ClusterID,
			InfraEnvID: ie, HostID: id, Message: fmt.Sprintf("Host %s: unbound from cluster %s", s.HostName(h), h.ClusterID)})
	}
	if reset {
		st := models.HostStatusUnbindingPendingUserAction
		_, err := s.store.Apply(ctx, &engine.SetHostStatus{ID: id, Status: st, StatusInfo: infoUnbinding, From: []string{h.Status},
			Event: &engine.Event{Name: "host_status_updated", Severity: SeverityOf(st),
				Message: fmt.Sprintf("Host %s: updated status from %s to %s (%s)", s.HostName(h), h.Status, st, infoUnbinding)}})
		if err != nil && !errors.Is(err, engine.ErrConflict) {
			return fmt.Errorf("set status of host %s: %w", id, err)
		}
	}
	if err := s.Refresh(ctx, id); err != nil {
		return err
	}
	return s.RefreshCluster(ctx, h.ClusterID)
}

// DefaultDisk is the installation disk to set with a new inventory: the
// first eligible disk when the current one is unset or gone ("" : keep).
func (s *Service) DefaultDisk(h engine.Host, inventory []byte) string {
	h.Inventory = inventory
	var eligible []*models.Disk
	s.store.Read(func(m *engine.Model) {
		_, eligible = s.HostFacts(m, h).InstallationDisks(s.HostThresholds(m, h))
	})
	for _, d := range eligible {
		if d.ID == h.InstallationDiskID {
			return ""
		}
	}
	if len(eligible) == 0 {
		return ""
	}
	return eligible[0].ID
}

// SetIgnitionOverride sets the Ignition override of host id of infra-env
// ie (upstream's V2UpdateHostIgnition; "" removes it), checked like
// ignition_config_overrides, with its event.
func (s *Service) SetIgnitionOverride(ctx context.Context, ie, id, config string) error {
	if err := CheckOverride(config); err != nil {
		return err
	}
	h, err := s.Host(ie, id)
	if err != nil {
		return err
	}
	if _, err := s.store.Apply(ctx, &engine.UpdateHost{ID: id, InfraEnvID: ie, Patch: engine.HostPatch{IgnitionOverride: &config}}); err != nil {
		return fmt.Errorf("update host ignition: %w", err)
	}
	s.Event(ctx, engine.Event{Name: "host_updated", Severity: "info", ClusterID: h.ClusterID, InfraEnvID: ie, HostID: id,
		Message: fmt.Sprintf("Host %s: ignition config overrides set", s.HostName(h))})
	return nil
}

// SetInstallerArgs sets the installer_args of host id of infra-env ie
// (upstream's V2UpdateHostInstallerArgs; none removes them): the
// coreos-installer flags its installation adds, checked by
// boot/installerargs, with upstream's event.
func (s *Service) SetInstallerArgs(ctx context.Context, ie, id string, args []string) error {
	if err := installerargs.Check(args); err != nil {
		return Invalid("%s", err.Error())
	}
	h, err := s.Host(ie, id)
	if err != nil {
		return err
	}
	stored := ""
	if len(args) > 0 {
		b, err := json.Marshal(args)
		if err != nil {
			return fmt.Errorf("installer args: %w", err)
		}
		stored = string(b)
	}
	if _, err := s.store.Apply(ctx, &engine.UpdateHost{ID: id, InfraEnvID: ie, Patch: engine.HostPatch{InstallerArgs: &stored},
		Event: &engine.Event{Name: "host_installer_args_applied", Severity: "info",
			Message: fmt.Sprintf("Host %s: custom installer arguments were applied", s.HostName(h))}}); err != nil {
		return fmt.Errorf("update host installer args: %w", err)
	}
	return nil
}

// ResetValidation is upstream's reset-validation action on host id of
// infra-env ie: it forgets the installation disk's speed measurement
// (sufficient-installation-disk-speed: the disk is measured again at the
// next preparation) or the image statuses (container-images-available:
// rackboot keeps none), and re-evaluates the host. Other validations
// cannot be reset (ErrInvalid); an unbound host has none (ErrConflict).
func (s *Service) ResetValidation(ctx context.Context, ie, id, vid string) error {
	h, err := s.Host(ie, id)
	if err != nil {
		return err
	}
	switch validation.ID(vid) {
	case validation.HostSufficientInstallationDiskSpeed, validation.HostContainerImagesAvailable:
	default:
		return Invalid("Validation %q cannot be reset or does not exist", Clip(vid))
	}
	if h.ClusterID == "" {
		return fmt.Errorf("%w: host %s is not bound to any cluster, reset validation", ErrConflict, id)
	}
	if validation.ID(vid) == validation.HostSufficientInstallationDiskSpeed {
		raw, err := DisksInfoWithout(h)
		if err != nil {
			return err
		}
		if _, err := s.store.Apply(ctx, &engine.UpdateHost{ID: id, InfraEnvID: ie, Patch: engine.HostPatch{DisksInfo: raw},
			Event: &engine.Event{Name: "host_validation_reset", Severity: "info",
				Message: fmt.Sprintf("Host %s: validation %s reset", s.HostName(h), vid)}}); err != nil {
			return fmt.Errorf("reset validation: %w", err)
		}
	}
	return s.Refresh(ctx, id)
}
