package api

import (
	"fmt"
	"log/slog"
	"net/http"

	"github.com/rackboot/rackboot/engine/auth"
)

// access is who may call a route.
type access int

const (
	public   access = iota // anyone (the OpenAPI document)
	admin                  // the admin bearer token only
	infraEnv               // the admin, or an agent token of the path's infra-env
	download               // infraEnv, or an image token (image_token) of the path's infra-env
	progress               // infraEnv, or the host-scoped token of the path's host
)

// handlerFunc serves an authenticated request; a returned error is
// written as upstream's error document.
type handlerFunc func(w http.ResponseWriter, r *http.Request, p auth.Principal) error

// route is one entry of the routing table (paths relative to BasePath).
type route struct {
	method string
	path   string
	access access
	ok     int // the success status, as upstream (documented in openapi.json)
	h      handlerFunc
}

// infraErr reports whether rt answers 401 and 403 with upstream's
// InfraError: every route an agent credential may call (register,
// instructions, step replies with the inventory, progress, the host's
// Ignition, the infra-env and its downloads), whose callers are
// upstream's agent and installer; they decode it and stop for good.
func (rt route) infraErr() bool {
	switch rt.access {
	case infraEnv, download, progress:
		return true
	}
	return false
}

// routes is the routing table; the OpenAPI document lists exactly these.
func (s *server) routes() []route {
	return []route{
		{http.MethodGet, "/openapi.json", public, 200, s.openAPI},
		{http.MethodGet, "/clusters", admin, 200, s.listClusters},
		{http.MethodPost, "/clusters", admin, 201, s.createCluster},
		{http.MethodGet, "/clusters/{cluster_id}", admin, 200, s.getCluster},
		{http.MethodPatch, "/clusters/{cluster_id}", admin, 201, s.updateCluster},
		{http.MethodDelete, "/clusters/{cluster_id}", admin, 204, s.deleteCluster},
		{http.MethodPost, "/clusters/{cluster_id}/actions/install", admin, 202, s.installCluster},
		{http.MethodPost, "/clusters/{cluster_id}/actions/cancel", admin, 202, s.cancelInstallation},
		{http.MethodPost, "/clusters/{cluster_id}/actions/reset", admin, 202, s.resetCluster},
		{http.MethodPost, "/clusters/{cluster_id}/actions/allow-add-workers", admin, 202, s.allowAddWorkers},
		{http.MethodPost, "/clusters/{cluster_id}/actions/allow-add-hosts", admin, 202, s.allowAddWorkers},
		{http.MethodPost, "/clusters/{cluster_id}/actions/complete-installation", admin, 202, s.completeInstallation},
		{http.MethodGet, "/clusters/{cluster_id}/manifests", admin, 200, s.listManifests},
		{http.MethodPost, "/clusters/{cluster_id}/manifests", admin, 201, s.createManifest},
		{http.MethodDelete, "/clusters/{cluster_id}/manifests", admin, 200, s.deleteManifest},
		{http.MethodGet, "/clusters/{cluster_id}/install-config", admin, 200, s.getInstallConfig},
		{http.MethodPatch, "/clusters/{cluster_id}/install-config", admin, 201, s.updateInstallConfig},
		{http.MethodGet, "/clusters/{cluster_id}/credentials", admin, 200, s.credentials},
		{http.MethodGet, "/clusters/{cluster_id}/downloads/credentials", admin, 200, s.downloadCredentials},
		{http.MethodGet, "/clusters/{cluster_id}/downloads/files", admin, 200, s.downloadClusterFile},
		{http.MethodGet, "/infra-envs", admin, 200, s.listInfraEnvs},
		{http.MethodPost, "/infra-envs", admin, 201, s.createInfraEnv},
		{http.MethodGet, "/infra-envs/{infra_env_id}", infraEnv, 200, s.getInfraEnv},
		{http.MethodPatch, "/infra-envs/{infra_env_id}", admin, 201, s.updateInfraEnv},
		{http.MethodDelete, "/infra-envs/{infra_env_id}", admin, 204, s.deleteInfraEnv},
		{http.MethodGet, "/infra-envs/{infra_env_id}/downloads/image-url", admin, 200, s.imageURL},
		{http.MethodGet, "/infra-envs/{infra_env_id}/downloads/files", download, 200, s.downloadFile},
		{http.MethodGet, "/infra-envs/{infra_env_id}/hosts", infraEnv, 200, s.listHosts},
		{http.MethodPost, "/infra-envs/{infra_env_id}/hosts", infraEnv, 201, s.registerHost},
		{http.MethodGet, "/infra-envs/{infra_env_id}/hosts/{host_id}", infraEnv, 200, s.getHost},
		{http.MethodPatch, "/infra-envs/{infra_env_id}/hosts/{host_id}", admin, 201, s.updateHost},
		{http.MethodDelete, "/infra-envs/{infra_env_id}/hosts/{host_id}", admin, 204, s.deleteHost},
		{http.MethodPost, "/infra-envs/{infra_env_id}/hosts/{host_id}/actions/bind", admin, 200, s.bindHost},
		{http.MethodPost, "/infra-envs/{infra_env_id}/hosts/{host_id}/actions/unbind", admin, 200, s.unbindHost},
		{http.MethodPost, "/infra-envs/{infra_env_id}/hosts/{host_id}/actions/install", admin, 202, s.installHost},
		{http.MethodPatch, "/infra-envs/{infra_env_id}/hosts/{host_id}/actions/reset-validation/{validation_id}", admin, 200, s.resetValidation},
		{http.MethodGet, "/infra-envs/{infra_env_id}/hosts/{host_id}/instructions", infraEnv, 200, s.nextSteps},
		{http.MethodPut, "/infra-envs/{infra_env_id}/hosts/{host_id}/progress", progress, 200, s.updateProgress},
		{http.MethodGet, "/infra-envs/{infra_env_id}/hosts/{host_id}/downloads/ignition", infraEnv, 200, s.downloadHostIgnition},
		{http.MethodPatch, "/infra-envs/{infra_env_id}/hosts/{host_id}/ignition", admin, 201, s.updateHostIgnition},
		{http.MethodPatch, "/infra-envs/{infra_env_id}/hosts/{host_id}/installer-args", admin, 201, s.updateHostInstallerArgs},
		{http.MethodPost, "/infra-envs/{infra_env_id}/hosts/{host_id}/instructions", infraEnv, 204, s.stepReply},
		{http.MethodGet, "/events", admin, 200, s.listEvents},
		{http.MethodGet, "/signing-keys", admin, 200, s.listKeys},
		{http.MethodPost, "/signing-keys/actions/rotate", admin, 200, s.rotateKey},
		{http.MethodDelete, "/signing-keys/{kid}", admin, 204, s.retireKey},
		{http.MethodGet, "/baremetal-hosts", admin, 200, s.listBMHs},
		{http.MethodPost, "/baremetal-hosts", admin, 201, s.createBMH},
		{http.MethodGet, "/baremetal-hosts/{name}", admin, 200, s.getBMH},
		{http.MethodPatch, "/baremetal-hosts/{name}", admin, 200, s.patchBMH},
		{http.MethodDelete, "/baremetal-hosts/{name}", admin, 204, s.deleteBMH},
	}
}

// statusWriter remembers the status code for the request log.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (flushing a
// watch stream).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// wrap authenticates and authorizes a request for rt, runs it and logs
// it (method, path without query, status, principal).
func (s *server) wrap(rt route) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w := &statusWriter{ResponseWriter: rw}
		p, err := s.authorize(r, rt.access)
		if err == nil {
			err = s.consistent(w, r, rt)
		}
		if err == nil {
			err = rt.h(w, r, p)
		}
		switch {
		case err != nil && rt.infraErr() && isAuthStatus(statusOf(err)):
			writeInfraError(w, statusOf(err), err)
		case err != nil:
			s.writeError(w, r, err)
		case w.code != rt.ok:
			s.log.ErrorContext(r.Context(), "undocumented success status", "method", r.Method, "route", rt.path,
				"status", w.code, "documented", rt.ok)
		}
		attrs := append(logAttrs(r, w.code), slog.Any("principal", p))
		level := slog.LevelDebug
		if w.code >= 400 {
			level = slog.LevelInfo
		}
		s.log.LogAttrs(r.Context(), level, "api request", attrs...)
	})
}

// authorize returns the caller of r if it may use a route of access a.
func (s *server) authorize(r *http.Request, a access) (auth.Principal, error) {
	if a == public {
		return auth.Principal{}, nil
	}
	if a == progress {
		return s.authorizeProgress(r)
	}
	if a == download {
		if p, ok, err := s.imageToken(r); ok {
			return p, err
		}
	}
	p, err := s.authenticate(r)
	if err != nil {
		return auth.Principal{}, err
	}
	if a == admin && !p.IsAdmin() {
		return p, forbidden("%s may not use this endpoint", p)
	}
	if a == infraEnv || a == download {
		if err := p.AllowInfraEnv(r.PathValue("infra_env_id")); err != nil {
			return p, err
		}
	}
	return p, nil
}

// imageToken checks an image token (Image-Token header or image_token
// query: a path token of auth.NewPathToken) against the path's infra-env;
// ok is false when r carries its credential elsewhere.
func (s *server) imageToken(r *http.Request) (auth.Principal, bool, error) {
	cred, err := auth.CredentialFromRequest(r)
	if err != nil || (cred.Source != auth.SourceImageToken && cred.Source != auth.SourceImageQuery) {
		return auth.Principal{}, false, nil
	}
	id := r.PathValue("infra_env_id")
	if err := s.keys.VerifyPathToken(cred.Token, id); err != nil {
		return auth.Principal{}, true, fmt.Errorf("%s: %w", cred.Source, err)
	}
	return auth.Principal{Kind: auth.KindAgent, InfraEnvID: id, Subject: "image"}, true, nil
}
