package backup

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/rackboot/rackboot/engine"
)

// Path is where the handler serves (GET: a backup file).
const Path = "/api/rackboot/v1/backup"

// barrierTimeout bounds waiting for this node to catch up with the
// leader before the state is copied: long enough for an election, after
// which a node that reaches no leader answers 503.
const barrierTimeout = 10 * time.Second

// Take returns a consistent backup of st: it waits until every command
// committed before the call is applied on this node (a barrier, through
// the leader on a follower), clones the model under the read lock and
// encodes the clone outside it.
func Take(ctx context.Context, st engine.Store, node string, now time.Time) ([]byte, Meta, error) {
	if err := st.Barrier(ctx); err != nil {
		return nil, Meta{}, err
	}
	var m *engine.Model
	st.Read(func(live *engine.Model) { m = live.Clone() })
	meta := Meta{Created: now.UTC(), Node: node}
	b, err := Encode(meta, m)
	if err != nil {
		return nil, Meta{}, err
	}
	meta.Index = m.Index()
	return b, meta, nil
}

// Handler serves GET Path with a backup of st; the caller authenticates
// requests (the admin token only).
type Handler struct {
	Store engine.Store
	// Node names the appliance in the backup's header.
	Node string
	Log  *slog.Logger
}

func (h Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		writeError(w, http.StatusMethodNotAllowed, "GET only")
		return
	}
	log := h.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithTimeout(r.Context(), barrierTimeout)
	defer cancel()
	b, meta, err := Take(ctx, h.Store, h.Node, time.Now())
	if err != nil {
		log.Warn("backup failed", "err", err)
		writeError(w, http.StatusServiceUnavailable, "no consistent state to back up: "+err.Error())
		return
	}
	log.Info("backup served", "index", meta.Index, "bytes", len(b))
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	_, _ = w.Write(b)
}

// writeError writes the API's error document.
func writeError(w http.ResponseWriter, code int, reason string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]string{"code": strconv.Itoa(code), "reason": reason})
}
