package api

import (
	"net/http"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/models"
)

// NotReadyDocument is the 409 document of the install action: upstream's
// error document plus the failing validations.
type NotReadyDocument struct {
	Error
	Validations []models.FailingValidation `json:"validations"`
}

func (s *server) installCluster(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	id := r.PathValue("cluster_id")
	if err := s.clusters.StartInstall(r.Context(), id); err != nil {
		return err
	}
	return s.writeCluster(w, http.StatusAccepted, id)
}

// clusterProgress is the cluster's total percentage: the mean of its
// hosts' installation percentages (nil before any host has progress).
func clusterProgress(m *engine.Model, c engine.Cluster) *models.ClusterProgressInfo {
	var sum, n int
	for h := range m.HostsOfCluster(c.ID) {
		sum += h.Progress.InstallationPercentage
		n++
	}
	if c.Status == engine.ClusterStatusInstalled {
		return &models.ClusterProgressInfo{TotalPercentage: 100}
	}
	if n == 0 || sum == 0 {
		return nil
	}
	return &models.ClusterProgressInfo{TotalPercentage: int64(sum / n)}
}
