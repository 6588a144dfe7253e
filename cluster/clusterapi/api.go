package clusterapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/rackboot/rackboot/cluster"
	"github.com/rackboot/rackboot/engine"
)

// Path is where the handler serves.
const Path = "/api/rackboot/v1/cluster"

// maxBody bounds a request body.
const maxBody = 4 << 10

// Cluster is what the handler needs from the store (*cluster.Store).
type Cluster interface {
	Status(ctx context.Context) (cluster.Status, error)
	AddMember(ctx context.Context, p cluster.Peer) error
	RemoveMember(ctx context.Context, id string) error
}

// MemberRequest is the body of POST .../members.
type MemberRequest struct {
	ID      string `json:"id"`
	Address string `json:"address"`
}

// Error is the error document.
type Error struct {
	Code   string `json:"code"`
	Reason string `json:"reason"`
}

type handler struct {
	c   Cluster
	log *slog.Logger
}

// New returns the handler; the caller authenticates requests.
func New(c Cluster, log *slog.Logger) http.Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := &handler{c: c, log: log}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+Path, h.status)
	mux.HandleFunc("POST "+Path+"/members", h.add)
	mux.HandleFunc("DELETE "+Path+"/members/{id}", h.remove)
	return mux
}

func (h *handler) status(w http.ResponseWriter, r *http.Request) {
	st, err := h.c.Status(r.Context())
	if err != nil {
		h.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}

func (h *handler) add(w http.ResponseWriter, r *http.Request) {
	var req MemberRequest
	dec := json.NewDecoder(io.LimitReader(r.Body, maxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		h.fail(w, fmt.Errorf("%w: request body: %w", engine.ErrInvalid, err))
		return
	}
	if err := h.c.AddMember(r.Context(), cluster.Peer{ID: req.ID, Addr: req.Address}); err != nil {
		h.fail(w, err)
		return
	}
	h.log.Info("cluster member added through the API", "node", req.ID, "addr", req.Address)
	h.status(w, r)
}

func (h *handler) remove(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if err := h.c.RemoveMember(r.Context(), id); err != nil {
		h.fail(w, err)
		return
	}
	h.log.Info("cluster member removed through the API", "node", id)
	h.status(w, r)
}

// fail writes err with its status.
func (h *handler) fail(w http.ResponseWriter, err error) {
	code := statusOf(err)
	if code >= 500 {
		h.log.Warn("cluster request failed", "err", err)
	}
	writeJSON(w, code, Error{Code: strconv.Itoa(code), Reason: err.Error()})
}

func statusOf(err error) int {
	switch {
	case errors.Is(err, engine.ErrInvalid):
		return http.StatusBadRequest
	case errors.Is(err, engine.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, cluster.ErrRefused), errors.Is(err, engine.ErrConflict):
		return http.StatusConflict
	case errors.Is(err, engine.ErrNotLeader):
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}
