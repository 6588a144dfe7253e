package api

import (
	"fmt"
	"net/http"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/validation"
)

// resetValidation is upstream's reset-validation action: it forgets the
// installation disk's speed measurement (sufficient-installation-disk-speed:
// the disk is measured again at the next preparation) or the image
// statuses (container-images-available: rackboot keeps none). Other
// validations cannot be reset (400).
func (s *server) resetValidation(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	ie, id, vid := r.PathValue("infra_env_id"), r.PathValue("host_id"), r.PathValue("validation_id")
	h, err := s.hosts.Host(ie, id)
	if err != nil {
		return err
	}
	switch validation.ID(vid) {
	case validation.HostSufficientInstallationDiskSpeed, validation.HostContainerImagesAvailable:
	default:
		return badRequest("Validation %q cannot be reset or does not exist", hosts.Clip(vid))
	}
	if h.ClusterID == "" {
		return fmt.Errorf("%w: host %s is not bound to any cluster, reset validation", ErrConflict, id)
	}
	ctx := r.Context()
	if validation.ID(vid) == validation.HostSufficientInstallationDiskSpeed {
		raw, err := hosts.DisksInfoWithout(h)
		if err != nil {
			return err
		}
		if _, err := s.store.Apply(ctx, &engine.UpdateHost{ID: id, InfraEnvID: ie, Patch: engine.HostPatch{DisksInfo: raw},
			Event: &engine.Event{Name: "host_validation_reset", Severity: "info",
				Message: fmt.Sprintf("Host %s: validation %s reset", s.hosts.HostName(h), vid)}}); err != nil {
			return fmt.Errorf("reset validation: %w", err)
		}
	}
	if err := s.hosts.Refresh(ctx, id); err != nil {
		return err
	}
	return s.writeHost(w, http.StatusOK, ie, id)
}
