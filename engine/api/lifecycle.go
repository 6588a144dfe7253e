package api

import (
	"net/http"
	"strings"
	"unicode"

	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/hosts"
)

func (s *server) cancelInstallation(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	id := r.PathValue("cluster_id")
	if err := s.clusters.Cancel(r.Context(), id); err != nil {
		return err
	}
	return s.writeCluster(w, http.StatusAccepted, id)
}

func (s *server) resetCluster(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	id := r.PathValue("cluster_id")
	if err := s.clusters.Reset(r.Context(), id); err != nil {
		return err
	}
	return s.writeCluster(w, http.StatusAccepted, id)
}

func (s *server) allowAddWorkers(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	id := r.PathValue("cluster_id")
	if err := s.clusters.AllowAddWorkers(r.Context(), id); err != nil {
		return err
	}
	return s.writeCluster(w, http.StatusAccepted, id)
}

// installHost is the day-2 host install action.
func (s *server) installHost(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	ie, id := r.PathValue("infra_env_id"), r.PathValue("host_id")
	if err := s.clusters.InstallHost(r.Context(), ie, id); err != nil {
		return err
	}
	return s.writeHost(w, http.StatusAccepted, ie, id)
}

// CompletionParams is the body of actions/complete-installation.
type CompletionParams struct {
	ErrorInfo string `json:"error_info,omitempty"`
	IsSuccess *bool  `json:"is_success"`
}

// completeInstallation is upstream's V2CompleteInstallation: whoever
// watches the installed cluster reports it finished (installed) or failed
// (error with error_info). rackboot's controller completes a finalizing
// cluster by itself; this lets an outside observer do it, or fail it.
func (s *server) completeInstallation(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	id := r.PathValue("cluster_id")
	var p CompletionParams
	if err := decode(w, r, maxBody, &p); err != nil {
		return err
	}
	if p.IsSuccess == nil {
		return badRequest("is_success is required")
	}
	if len(p.ErrorInfo) > hosts.MaxProgressInfo || strings.ContainsFunc(p.ErrorInfo, unicode.IsControl) {
		return badRequest("error_info is longer than %d bytes or holds control characters", hosts.MaxProgressInfo)
	}
	if err := s.clusters.Complete(r.Context(), id, *p.IsSuccess, p.ErrorInfo); err != nil {
		return err
	}
	return s.writeCluster(w, http.StatusAccepted, id)
}
