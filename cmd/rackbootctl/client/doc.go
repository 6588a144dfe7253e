// Package client is a typed HTTP client for the subset of the
// assisted-service REST API v2 (/api/assisted-install/v2) that rackbootd
// serves: clusters, infra-envs, hosts, events and the infra-env downloads.
// rackbootctl talks to rackbootd only through it.
//
// Every method takes a context first. The admin token is sent as an
// `Authorization: Bearer` header and never appears in an error or log
// line. A non-2xx answer becomes an *APIError carrying the HTTP status and
// the server's reason (upstream's {"code","reason"} or {"code","message"}
// error documents); errors.Is matches it against ErrNotFound,
// ErrUnauthorized, ErrForbidden, ErrConflict and ErrBadRequest.
//
// The wire types here (Cluster, InfraEnv, Event, the create/update
// parameters) use upstream's JSON field names; hosts use engine/models.
package client
