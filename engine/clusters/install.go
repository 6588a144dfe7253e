package clusters

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/install"
	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/engine/validation"
)

// NotReadyError is the install action's refusal of a cluster that is not
// ready: it wraps hosts.ErrConflict (the REST API's 409) and its validations go into the error
// document's "validations".
type NotReadyError struct {
	ClusterID   string
	Status      string
	Validations []models.FailingValidation
}

func (e *NotReadyError) Error() string {
	ids := make([]string, 0, len(e.Validations))
	for _, v := range e.Validations {
		ids = append(ids, v.ID)
	}
	return fmt.Sprintf("%v: cluster %s is %s, not ready: failing validations %s", hosts.ErrConflict, e.ClusterID,
		e.Status, strings.Join(ids, ", "))
}

func (e *NotReadyError) Unwrap() error { return hosts.ErrConflict }

// FailingValidations lists what keeps cluster c from installing: its
// failing validations, then those of its hosts that are not known.
func (s *Service) FailingValidations(m *engine.Model, c engine.Cluster) []models.FailingValidation {
	out := []models.FailingValidation{}
	t := s.hosts.ClusterThresholds(m, c)
	for _, r := range validation.ValidateCluster(s.hosts.ClusterFacts(m, c, &t), t) {
		if !r.Passed() && !r.Hidden {
			out = append(out, models.FailingValidation{ID: string(r.ID), Status: string(r.Status), Message: r.Message})
		}
	}
	for h := range m.HostsOfCluster(c.ID) {
		if h.Status == models.HostStatusKnown {
			continue
		}
		for _, r := range validation.ValidateHost(s.hosts.HostFacts(m, h), s.hosts.HostThresholds(m, h)) {
			if !r.Passed() && !r.Hidden {
				out = append(out, models.FailingValidation{ID: string(r.ID), Status: string(r.Status), Message: r.Message, HostID: h.ID})
			}
		}
	}
	return out
}

// installPlan is what the install action applies: roles, the bootstrap
// host and the command.
type installPlan struct {
	cmd     *engine.StartInstall
	cluster engine.Cluster
}

// planInstall checks that cluster id can install and picks roles and the
// bootstrap host.
func (s *Service) planInstall(id string) (installPlan, error) {
	var (
		plan installPlan
		err  error
	)
	s.store.Read(func(m *engine.Model) {
		var c engine.Cluster
		if c, err = lookup(m, id); err != nil {
			return
		}
		plan.cluster = c
		if err = s.installable(m, c); err != nil {
			return
		}
		t := s.hosts.ClusterThresholds(m, c)
		roles := map[string]string{}
		for _, h := range s.hosts.ClusterFacts(m, c, &t).Hosts {
			roles[h.ID] = string(h.Role)
		}
		plan.cmd = &engine.StartInstall{ClusterID: id, Roles: roles, Bootstrap: s.chooseBootstrap(m, c, roles)}
	})
	return plan, err
}

// installable refuses a cluster that is not ready (with its failing
// validations), that holds its installation, or whose image set has no
// disk image.
func (s *Service) installable(m *engine.Model, c engine.Cluster) error {
	if c.Status != engine.ClusterStatusReady {
		return &NotReadyError{ClusterID: c.ID, Status: c.Status, Validations: s.FailingValidations(m, c)}
	}
	if c.HoldInstallation {
		return fmt.Errorf("%w: cluster %s holds its installation (hold_installation is true)", hosts.ErrConflict, c.ID)
	}
	var unapproved []string
	for h := range m.HostsOfCluster(c.ID) {
		if !h.Approved {
			unapproved = append(unapproved, h.ID)
		}
	}
	if len(unapproved) > 0 {
		return fmt.Errorf("%w: the installation is pending on the approval of %d hosts (%s)", hosts.ErrConflict,
			len(unapproved), strings.Join(unapproved, ", "))
	}
	is, ok := m.ClusterImageSet(c)
	if !ok || is.DiskImage.Path == "" {
		return fmt.Errorf("%w: cluster %s: its image set %q has no disk image to install", hosts.ErrConflict, c.ID, is.Name)
	}
	return nil
}

// chooseBootstrap picks the bootstrap host among the masters as upstream
// does: the one that reached the most other hosts of the cluster in its
// connectivity check; ties go to the lowest host id.
func (s *Service) chooseBootstrap(m *engine.Model, c engine.Cluster, roles map[string]string) string {
	type cand struct {
		id    string
		reach int
	}
	var cands []cand
	for h := range m.HostsOfCluster(c.ID) {
		if roles[h.ID] == string(models.HostRoleMaster) {
			cands = append(cands, cand{h.ID, reachable(s.hosts.Connectivity(h))})
		}
	}
	if len(cands) == 0 {
		return ""
	}
	slices.SortFunc(cands, func(a, b cand) int {
		return cmp.Or(cmp.Compare(b.reach, a.reach), strings.Compare(a.id, b.id))
	})
	return cands[0].id
}

// reachable counts the remote hosts a connectivity report reached over L3.
func reachable(r *models.ConnectivityReport) int {
	if r == nil {
		return 0
	}
	n := 0
	for _, rh := range r.RemoteHosts {
		if rh != nil && slices.ContainsFunc(rh.L3Connectivity, func(l *models.L3Connectivity) bool { return l != nil && l.Successful }) {
			n++
		}
	}
	return n
}

// StartInstall checks that cluster id can install, picks its disks, roles
// and bootstrap host and starts the installation, with its events.
func (s *Service) StartInstall(ctx context.Context, id string) error {
	plan, err := s.planInstall(id)
	if err != nil {
		return err
	}
	if err := s.PickDisks(ctx, id, ""); err != nil {
		return err
	}
	if _, err := s.store.Apply(ctx, plan.cmd); err != nil {
		if errors.Is(err, engine.ErrConflict) {
			return fmt.Errorf("%w: cluster %s changed while the install started: %v", hosts.ErrConflict, id, err)
		}
		return fmt.Errorf("start install: %w", err)
	}
	s.log.InfoContext(ctx, "installation started", "cluster", id, "bootstrap", plan.cmd.Bootstrap)
	s.hosts.Event(ctx, engine.Event{Name: "cluster_installation_started", Severity: "info", ClusterID: id,
		Message: fmt.Sprintf("Updated status of the cluster to %s", engine.ClusterStatusPreparingForInstallation)})
	s.hosts.Event(ctx, engine.Event{Name: "bootstrap_host_selected", Severity: "info", ClusterID: id, HostID: plan.cmd.Bootstrap,
		Message: fmt.Sprintf("Host %s: selected as the bootstrap host", plan.cmd.Bootstrap)})
	s.hostStatusEvents(ctx, id, models.HostStatusKnown)
	return nil
}

// hostStatusEvents records a host_status_updated event for every host of
// cluster id, whose status was from before.
func (s *Service) hostStatusEvents(ctx context.Context, id, from string) {
	var members []engine.Host
	s.store.Read(func(m *engine.Model) { members = slices.Collect(m.HostsOfCluster(id)) })
	for _, h := range members {
		if h.Status == from {
			continue
		}
		s.hosts.Event(ctx, engine.Event{Name: "host_status_updated", Severity: hosts.SeverityOf(h.Status), ClusterID: id,
			InfraEnvID: h.InfraEnvID, HostID: h.ID,
			Message: fmt.Sprintf("Host %s: updated status from %s to %s (%s)", s.hosts.HostName(h), from, h.Status, h.StatusInfo)})
	}
}

// CheckNetworkType accepts upstream's network types.
func CheckNetworkType(t string) error {
	switch t {
	case validation.NetworkTypeOVNKubernetes, validation.NetworkTypeOpenShiftSDN:
		return nil
	}
	return hosts.Invalid("network_type %q is not %s or %s", hosts.Clip(t), validation.NetworkTypeOVNKubernetes,
		validation.NetworkTypeOpenShiftSDN)
}

// defaultImageSet is the image set a new cluster installs: the one it
// names (which must exist), else the one whose version is its
// openshift_version (or starts with it and a dot), else the x86_64 image
// set the boot selector would use; "" when there is none.
func (s *Service) defaultImageSet(c engine.Cluster) (string, error) {
	var (
		ref string
		err error
	)
	s.store.Read(func(m *engine.Model) {
		if c.ImageSetRef != "" {
			if _, ok := m.ImageSet(c.ImageSetRef); !ok {
				err = hosts.Invalid("image_set_ref %q names no image set", hosts.Clip(c.ImageSetRef))
			}
			ref = c.ImageSetRef
			return
		}
		for is := range m.ImageSets() {
			if engine.NormArch(is.CPUArchitecture) == hosts.DefaultCPUArchitecture &&
				(is.Version == c.OpenshiftVersion || strings.HasPrefix(is.Version, c.OpenshiftVersion+".")) {
				ref = is.Name
				return
			}
		}
		if is, ok := m.ClusterImageSet(c); ok {
			ref = is.Name
		}
	})
	return ref, err
}

// PickDisks gives every host of cluster id (only host only, when set)
// without an installation disk the first eligible one of its inventory,
// as upstream selects one when the user did not; a host with none is a
// 409 naming it.
func (s *Service) PickDisks(ctx context.Context, id, only string) error {
	var todo []engine.Host
	s.store.Read(func(m *engine.Model) {
		for h := range m.HostsOfCluster(id) {
			if (only == "" || h.ID == only) && install.HostDetails(h).Disk == nil {
				todo = append(todo, h)
			}
		}
	})
	for _, h := range todo {
		disk := s.hosts.DefaultDisk(h, h.Inventory)
		if disk == "" {
			return fmt.Errorf("%w: host %s has no eligible installation disk", hosts.ErrConflict, h.ID)
		}
		if _, err := s.store.Apply(ctx, &engine.UpdateHost{ID: h.ID, Patch: engine.HostPatch{InstallationDiskID: &disk}}); err != nil {
			return fmt.Errorf("set the installation disk of host %s: %w", h.ID, err)
		}
		s.hosts.Event(ctx, engine.Event{Name: "host_updated", Severity: "info", ClusterID: h.ClusterID, InfraEnvID: h.InfraEnvID,
			HostID: h.ID, Message: fmt.Sprintf("Host %s: installation disk set to %s", s.hosts.HostName(h), disk)})
	}
	return nil
}
