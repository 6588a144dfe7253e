package api

import (
	"net/http"
	"strconv"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/clusters"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/models"
)

// maxEventsPage bounds one answer of GET /v2/events.
const maxEventsPage = 5000

// listEvents answers GET /v2/events?cluster_id=&infra_env_id=&host_id=
// &limit=&offset= with the matching events, oldest first.
func (s *server) listEvents(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	q := r.URL.Query()
	cluster, ie, host := q.Get("cluster_id"), q.Get("infra_env_id"), q.Get("host_id")
	for field, v := range map[string]string{"cluster_id": cluster, "infra_env_id": ie, "host_id": host} {
		if v != "" {
			if err := clusters.CheckUUID(field, v); err != nil {
				return err
			}
		}
	}
	limit, err := intParam(q.Get("limit"), maxEventsPage)
	if err != nil {
		return err
	}
	offset, err := intParam(q.Get("offset"), 0)
	if err != nil {
		return err
	}
	limit = min(limit, maxEventsPage)
	out := []models.Event{}
	s.store.Read(func(m *engine.Model) {
		skipped := 0
		for e := range m.Events(0) {
			if cluster != "" && e.ClusterID != cluster || ie != "" && e.InfraEnvID != ie || host != "" && e.HostID != host {
				continue
			}
			if skipped < offset {
				skipped++
				continue
			}
			if len(out) >= limit {
				break
			}
			out = append(out, eventOut(e))
		}
	})
	writeJSON(w, http.StatusOK, out)
	return nil
}

func intParam(s string, def int) (int, error) {
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, badRequest("%q is not a non-negative integer", hosts.Clip(s))
	}
	return n, nil
}
