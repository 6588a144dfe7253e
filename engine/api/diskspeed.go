package api

import (
	"net/http"

	"github.com/rackboot/rackboot/engine/auth"
)

// resetValidation is upstream's reset-validation action: it forgets the
// installation disk's speed measurement (sufficient-installation-disk-speed:
// the disk is measured again at the next preparation) or the image
// statuses (container-images-available: rackboot keeps none). Other
// validations cannot be reset (400).
func (s *server) resetValidation(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	ie, id, vid := r.PathValue("infra_env_id"), r.PathValue("host_id"), r.PathValue("validation_id")
	if err := s.hosts.ResetValidation(r.Context(), ie, id, vid); err != nil {
		return err
	}
	return s.writeHost(w, http.StatusOK, ie, id)
}
