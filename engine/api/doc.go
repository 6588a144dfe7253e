// Package api serves rackboot's subset of the assisted-service REST API v2
// under /api/assisted-install/v2: clusters, infra-envs (with their
// discovery Ignition, iPXE script and image URL, and static network
// configs), hosts (registration, user updates, late binding), the agent's
// next-step protocol and events, plus the OpenAPI document of exactly
// those routes (openapi.json; a test holds the routing table and the
// document to each other).
//
// Paths, JSON field names and status codes follow upstream
// (openshift/assisted-service), so that the upstream agent and tools
// written for the v2 API work against rackbootd. The handlers decode,
// call the domain and encode: hosts (evaluation, lifecycle, the agents'
// periodic steps, the host monitor) are engine/hosts, clusters
// (registration, changes, manifests, installation start, cancel, reset,
// day 2, completion, install artifacts and credentials) engine/clusters,
// infra-envs (registration, changes, static network configs, the
// discovery input) engine/infraenvs, the downloads and their URLs (the
// discovery Ignition, iPXE script and image URL, the install step and a
// host's install Ignition) engine/downloads, BareMetalHosts (with their
// sealed credentials) engine/bmhs, signing keys engine/signingkeys; the
// handler holds one Service of each. The
// domain's refusals (hosts.ErrInvalid, ErrNotFound, ErrConflict) become
// 400, 404 and 409 in one place (statusOf). The handler itself changes
// nothing: every write is the domain's, through engine.Store commands.
//
// Steps: a host without an inventory is asked for one; the periodic steps
// (ntp-synchronizer, connectivity-check, domain-resolution), the inventory
// again at every step interval and installation-disk-speed-check on a
// host preparing for installation are handed out as hosts.Service says.
// Their replies are checked here and kept by the domain; a failed disk
// speed check stops the cluster's preparation.
//
// Extension: GET /infra-envs/{id}/hosts?watch=true streams the
// infra-env's hosts as newline-delimited JSON WatchEvents (ADDED for each
// current host, then MODIFIED and DELETED as they change) from the store's
// change feed, for `get hosts -w`; timeout_seconds ends the stream. It is
// not upstream's and is marked so in openapi.json.
//
// Access: the user API needs the admin bearer token; an agent authenticates
// with an infra-env scoped JWT (X-Secret-Key header or api_key query) and
// may only register, read and report on hosts of that infra-env and
// download that infra-env's files; an image URL carries a short expiring
// image_token that opens that infra-env's downloads only. Pull secrets are
// kept as engine secrets, never inline in objects, and neither they nor
// tokens reach logs, events or error text. The routes an agent credential
// may call answer 401 and 403 with upstream's InfraError {code, message}
// (route.infraErr), on which upstream's agent stops.
//
// Installation: POST /clusters/{id}/actions/install accepts a ready
// cluster whose hosts are all approved (else 409 with the failing
// validations: NotReadyDocument) and moves it and its hosts to
// preparing-for-installation with their roles and a bootstrap host (the
// master reaching most hosts). The leader's controller (engine/install)
// generates the install configs and sets the hosts installing; each
// installing host's next poll hands it the install step once
// (models.InstallStepArgs: the image set's disk image on the boot server,
// the Ignition URL, the boot device, external_reboot with a paired BMH).
// GET .../downloads/ignition builds the host's install Ignition
// (boot/installer.HostIgnition: role config, hostname, static network
// keyfiles, override, first-boot report with a host-scoped token);
// PUT .../progress records stages (agent token, or that host-scoped token,
// which opens nothing else). cancel, reset, allow-add-workers, the day-2
// host install action, manifests, install-config, credentials and
// downloads/files are as upstream.
//
// Host validations (engine/validation) are re-evaluated by the domain
// (hosts.Service.Refresh) whenever an inventory, a step output, the host's
// clock verdict, a user setting or a binding changes; Monitor runs the
// domain's host monitor for programs that wire this package alone.
package api
