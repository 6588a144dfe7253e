package api

import (
	"fmt"
	"net/http"

	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/downloads"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/models"
)

// imageURL answers downloads/image-url as upstream does, with a presigned
// URL of the infra-env's discovery image (downloads.Service.ImageURL).
func (s *server) imageURL(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	u, exp, err := s.downloads.ImageURL(r.Context(), r.PathValue("infra_env_id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, models.PresignedURL{ExpiresAt: dt(exp.UTC()), URL: u})
	return nil
}

func (s *server) downloadFile(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	id := r.PathValue("infra_env_id")
	q := r.URL.Query()
	var (
		body []byte
		err  error
	)
	switch name := q.Get("file_name"); name {
	case downloads.FileDiscoveryIgnition:
		body, err = s.downloads.DiscoveryIgnition(id)
	case downloads.FileIPXEScript:
		body, err = s.downloads.IPXEScript(id, q.Get("ipxe_script_type"), q.Get("mac"))
	case "":
		return badRequest("file_name is required (%s or %s)", downloads.FileDiscoveryIgnition, downloads.FileIPXEScript)
	default:
		return badRequest("file_name %q is not %s or %s", hosts.Clip(name), downloads.FileDiscoveryIgnition, downloads.FileIPXEScript)
	}
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", q.Get("file_name")))
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
	return nil
}
