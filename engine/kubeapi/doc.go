// Package kubeapi serves the subset of the Kubernetes API that kubectl
// needs for the ACM/ZTP kinds (InfraEnv, NMStateConfig, Agent,
// AgentServiceConfig, AgentClusterInstall, ClusterDeployment,
// ClusterImageSet, BareMetalHost) and the v1 kinds they refer to
// (Namespace, Secret, ConfigMap), with upstream's groups, versions and
// printer columns. It is a hand-written subset on k8s.io/apimachinery's
// types, not k8s.io/apiserver: see docs/kube-api.md for why.
//
// Objects are engine.Objects in the replicated model: every appliance
// serves them, a write on a follower is forwarded by the store, and a
// resourceVersion is the raft index of the command that last changed the
// object (a list's is the model's index). Writes are checked here before a
// command is appended, so a refused request writes nothing; a stale
// resourceVersion is 409 Conflict, a missing object 404 NotFound, an
// existing one 409 AlreadyExists, a bad one 422 Invalid with field causes,
// each as a metav1.Status that kubectl prints as it prints a real API
// server's.
//
// Served: discovery (/api, /apis and each group version; /api and /apis
// also in the aggregated form kubectl asks for first), get, list (label
// selectors, the Table form with the printer columns, limit/continue
// paging consistent at the first page's resourceVersion: paging.go;
// resourceVersionMatch Exact and NotOlderThan: listmatch.go),
// create, update, delete (its DeleteOptions' propagationPolicy read and
// checked as kube-apiserver does, the engine's DeleteObject setting the
// orphan or foregroundDeletion finalizer that engine/kubegc removes:
// deleteopts.go), patch (JSON merge patch, JSON patch, strategic
// merge patch for the v1 kinds by apimachinery's strategicpatch:
// strategic.go, and server-side apply),
// metadata.managedFields kept by apimachinery's field manager (managed.go),
// the status subresource, and watch (from the store's change feed through
// a cache of recent changes: a resourceVersion it still holds resumes, an
// older one is 410 Gone; v1 Events, mapped from the domain events, by
// their own sequence: events_watch.go). A Namespace being deleted is
// Terminating and takes no new objects (namespaces.go); the leader
// writes its deletion conditions (nsconditions.go). Secret data is
// sealed (engine.Sealer) before it reaches a command and opened when
// served.
//
// Schemas: each kind's OpenAPI v3 schema is written in rackboot's own
// compact form in schemas/*.schema (upstream's field names, types, enums
// and required fields; rackboot's descriptions), parsed at start
// (schemaparse.go), served in the OpenAPI v3 documents (kubectl explain)
// and checked against every written object (fieldcheck.go,
// fieldbounds.go): unknown fields per the fieldValidation directive
// (Strict refuses, Warn answers Warning headers, Ignore lets through);
// wrong JSON types, values out of an enum, bad CIDRs, MACs and times,
// patterns and bounds are 422 Invalid (a v1 kind's bad base64 or time is
// kube's 400 decoding error).
//
// Access: the admin bearer token only; an agent token is 403 Forbidden,
// anything else 401.
package kubeapi
