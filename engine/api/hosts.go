package api

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/engine/validation"
	"github.com/rackboot/rackboot/ipxe"
)

// host returns host id of infra-env ie (404 for a host of another one).
func (s *server) host(ie, id string) (engine.Host, error) {
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

// writeHost writes host id of infra-env ie, with the role the engine
// suggests for it when it is an auto-assign host of a cluster.
func (s *server) writeHost(w http.ResponseWriter, code int, ie, id string) error {
	var out *models.APIHost
	s.store.Read(func(m *engine.Model) {
		h, ok := m.Host(id)
		if !ok || h.InfraEnvID != ie {
			return
		}
		out = s.hostOut(h)
		if h.ClusterID != "" && out.Role == models.HostRoleAutoAssign {
			if r := s.hosts.HostFacts(m, h).SuggestedRole; r != "" {
				out.SuggestedRole = r
			}
		}
	})
	if out == nil {
		return fmt.Errorf("%w: host %s in infra-env %s", ErrNotFound, id, ie)
	}
	writeJSON(w, code, out)
	return nil
}

func (s *server) listHosts(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	ie := r.PathValue("infra_env_id")
	if _, err := s.infraEnv(ie); err != nil {
		return err
	}
	if v := r.URL.Query().Get("watch"); v != "" {
		watch, err := strconv.ParseBool(v)
		if err != nil {
			return badRequest("watch %q is not true or false", clip(v))
		}
		if watch {
			return s.watchHosts(w, r, ie)
		}
	}
	out := []*models.APIHost{}
	s.store.Read(func(m *engine.Model) {
		for h := range m.HostsOfInfraEnv(ie) {
			out = append(out, s.hostOut(h))
		}
	})
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *server) getHost(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	return s.writeHost(w, http.StatusOK, r.PathValue("infra_env_id"), r.PathValue("host_id"))
}

// hostRoles are the roles a user may ask for.
func hostRoles() []string {
	return []string{string(models.HostRoleAutoAssign), string(models.HostRoleMaster),
		string(models.HostRoleWorker), string(models.HostRoleArbiter)}
}

func (s *server) updateHost(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	ie, id := r.PathValue("infra_env_id"), r.PathValue("host_id")
	var p models.HostUpdateParams
	if err := decode(w, r, maxBody, &p); err != nil {
		return err
	}
	if err := s.changeHost(r.Context(), ie, id, p); err != nil {
		return err
	}
	return s.writeHost(w, http.StatusCreated, ie, id)
}

// changeHost checks p and updates host id of infra-env ie, with its
// event, and re-evaluates it; bad input writes nothing.
func (s *server) changeHost(ctx context.Context, ie, id string, p models.HostUpdateParams) error {
	h, err := s.host(ie, id)
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
		s.hosts.Event(ctx, engine.Event{Name: "host_updated", Severity: "info", ClusterID: h.ClusterID, InfraEnvID: ie,
			HostID: id, Message: fmt.Sprintf("Host %s: %s", s.hosts.HostName(h), strings.Join(changes, ", "))})
	}
	return s.hosts.Refresh(ctx, id)
}

// hostPatch checks p against h and returns the engine patch and a
// description of each change.
func (s *server) hostPatch(h engine.Host, p models.HostUpdateParams) (engine.HostPatch, []string, error) {
	var (
		patch   engine.HostPatch
		changes []string
	)
	if p.HostRole != nil {
		if !slices.Contains(hostRoles(), *p.HostRole) {
			return patch, nil, badRequest("host_role %q is not one of %s", clip(*p.HostRole), strings.Join(hostRoles(), ", "))
		}
		patch.Role = p.HostRole
		changes = append(changes, "role set to "+*p.HostRole)
	}
	if p.HostName != nil {
		if err := checkHostname(*p.HostName); err != nil {
			return patch, nil, err
		}
		patch.RequestedHostname = p.HostName
		changes = append(changes, "hostname set to "+*p.HostName)
	}
	if p.IgnitionConfigOverrides != nil {
		if err := checkHostOverride(*p.IgnitionConfigOverrides); err != nil {
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
			return patch, nil, badRequest("disks_selected_config: id is required")
		}
		if d.Role != "install" && d.Role != "none" {
			return patch, nil, badRequest("disks_selected_config: role %q is not install or none", clip(d.Role))
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

// checkHostname accepts a hostname that upstream accepts and that cannot
// inject iPXE commands.
func checkHostname(name string) error {
	if !validation.HostnameValid(name) {
		return badRequest("host_name %q is not a valid hostname (%s)", clip(name), validation.HostnamePattern)
	}
	if err := ipxe.CheckHostname(name); err != nil {
		return badRequest("host_name %q: %v", clip(name), err)
	}
	return nil
}

// checkDisk accepts an eligible disk of h's inventory.
func (s *server) checkDisk(h engine.Host, diskID string) error {
	var eligible []*models.Disk
	var all []*models.Disk
	s.store.Read(func(m *engine.Model) {
		all, eligible = s.hosts.HostFacts(m, h).InstallationDisks(s.hosts.HostThresholds(m, h))
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
			return badRequest("disk %s is not eligible for installation: %s", clip(diskID),
				strings.Join(d.InstallationEligibility.NotEligibleReasons, "; "))
		}
	}
	return badRequest("host %s has no disk %q", h.ID, clip(diskID))
}

func (s *server) deleteHost(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	if err := s.deregisterHost(r.Context(), r.PathValue("infra_env_id"), r.PathValue("host_id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// deregisterHost deletes host id of infra-env ie, with its event, and
// re-evaluates its cluster.
func (s *server) deregisterHost(ctx context.Context, ie, id string) error {
	h, err := s.host(ie, id)
	if err != nil {
		return err
	}
	if _, err := s.store.Apply(ctx, &engine.DeleteHost{ID: id, InfraEnvID: ie}); err != nil {
		return fmt.Errorf("delete host: %w", err)
	}
	s.hosts.Event(ctx, engine.Event{Name: "host_deregistered", Severity: "info", ClusterID: h.ClusterID,
		InfraEnvID: ie, HostID: id, Message: fmt.Sprintf("Host %s: deregistered", s.hosts.HostName(h))})
	return s.hosts.RefreshCluster(ctx, h.ClusterID)
}

func (s *server) bindHost(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	ie, id := r.PathValue("infra_env_id"), r.PathValue("host_id")
	var p models.BindHostParams
	if err := decode(w, r, maxBody, &p); err != nil {
		return err
	}
	if p.ClusterID == nil {
		return badRequest("cluster_id is required")
	}
	if err := checkUUID("cluster_id", *p.ClusterID); err != nil {
		return err
	}
	if err := s.bind(r.Context(), ie, id, *p.ClusterID); err != nil {
		return err
	}
	return s.writeHost(w, http.StatusOK, ie, id)
}

// bind binds host id of infra-env ie to cluster clusterID, with its
// event, and re-evaluates the host.
func (s *server) bind(ctx context.Context, ie, id, clusterID string) error {
	env, err := s.infraEnv(ie)
	if err != nil {
		return err
	}
	h, err := s.host(ie, id)
	if err != nil {
		return err
	}
	if err := s.checkClusterArch(clusterID, env.CPUArchitecture); err != nil {
		return err
	}
	if _, err := s.store.Apply(ctx, &engine.BindHost{ID: id, ClusterID: clusterID}); err != nil {
		return fmt.Errorf("bind host: %w", err)
	}
	if h.ClusterID != clusterID {
		s.hosts.Event(ctx, engine.Event{Name: "host_bind_succeeded", Severity: "info", ClusterID: clusterID,
			InfraEnvID: ie, HostID: id, Message: fmt.Sprintf("Host %s: bound to cluster %s", s.hosts.HostName(h), clusterID)})
	}
	return s.hosts.Refresh(ctx, id)
}

func (s *server) unbindHost(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	ie, id := r.PathValue("infra_env_id"), r.PathValue("host_id")
	if err := s.unbind(r.Context(), ie, id); err != nil {
		return err
	}
	return s.writeHost(w, http.StatusOK, ie, id)
}

// unbind unbinds host id of infra-env ie from its cluster, with its
// event, and re-evaluates the host and the cluster.
func (s *server) unbind(ctx context.Context, ie, id string) error {
	h, err := s.host(ie, id)
	if err != nil {
		return err
	}
	env, err := s.infraEnv(ie)
	if err != nil {
		return err
	}
	if env.ClusterID != "" {
		return fmt.Errorf("%w: host %s: infra-env %s is bound to cluster %s", ErrConflict, id, ie, env.ClusterID)
	}
	if _, err := s.store.Apply(ctx, &engine.UnbindHost{ID: id}); err != nil {
		return fmt.Errorf("unbind host: %w", err)
	}
	if h.ClusterID != "" {
		s.hosts.Event(ctx, engine.Event{Name: "host_unbind_succeeded", Severity: "info", ClusterID: h.ClusterID,
			InfraEnvID: ie, HostID: id, Message: fmt.Sprintf("Host %s: unbound from cluster %s", s.hosts.HostName(h), h.ClusterID)})
	}
	if err := s.hosts.Refresh(ctx, id); err != nil {
		return err
	}
	return s.hosts.RefreshCluster(ctx, h.ClusterID)
}
