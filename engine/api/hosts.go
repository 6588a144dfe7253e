package api

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/clusters"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/models"
)

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
	if _, err := s.hosts.InfraEnv(ie); err != nil {
		return err
	}
	if v := r.URL.Query().Get("watch"); v != "" {
		watch, err := strconv.ParseBool(v)
		if err != nil {
			return badRequest("watch %q is not true or false", hosts.Clip(v))
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

func (s *server) updateHost(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	ie, id := r.PathValue("infra_env_id"), r.PathValue("host_id")
	var p models.HostUpdateParams
	if err := decode(w, r, maxBody, &p); err != nil {
		return err
	}
	if err := s.hosts.ChangeHost(r.Context(), ie, id, p); err != nil {
		return err
	}
	return s.writeHost(w, http.StatusCreated, ie, id)
}

// updateHostInstallerArgs is upstream's V2UpdateHostInstallerArgs: the
// host's installer_args, answered with the host.
func (s *server) updateHostInstallerArgs(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	ie, id := r.PathValue("infra_env_id"), r.PathValue("host_id")
	var p models.InstallerArgsParams
	if err := decode(w, r, maxBody, &p); err != nil {
		return err
	}
	if err := s.hosts.SetInstallerArgs(r.Context(), ie, id, p.Args); err != nil {
		return err
	}
	return s.writeHost(w, http.StatusCreated, ie, id)
}

func (s *server) deleteHost(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	if err := s.hosts.Deregister(r.Context(), r.PathValue("infra_env_id"), r.PathValue("host_id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
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
	if err := clusters.CheckUUID("cluster_id", *p.ClusterID); err != nil {
		return err
	}
	if err := s.hosts.Bind(r.Context(), ie, id, *p.ClusterID); err != nil {
		return err
	}
	return s.writeHost(w, http.StatusOK, ie, id)
}

func (s *server) unbindHost(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	ie, id := r.PathValue("infra_env_id"), r.PathValue("host_id")
	if err := s.hosts.Unbind(r.Context(), ie, id); err != nil {
		return err
	}
	return s.writeHost(w, http.StatusOK, ie, id)
}
