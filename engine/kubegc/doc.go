// Package kubegc is the garbage collector of the Kubernetes-compatible
// API's objects, as kube-controller-manager's. In the background: an
// object whose metadata.ownerReferences name owners none of which exists
// any more (an owner of the same kind and name with another uid is
// another object) is deleted (with finalizers, marked for deletion); one
// that keeps an owner loses its references to those gone. An owner
// deleted with propagationPolicy Orphan (the orphan finalizer, set by the
// DeleteObject command) has its references removed from its dependents,
// then the finalizer; one deleted with Foreground (foregroundDeletion)
// has its dependents deleted, and the finalizer removed once none with
// blockOwnerDeletion is left. The owner is looked up in the dependent's
// namespace, or among the cluster-scoped objects for a cluster-scoped
// kind. It runs on the leader, on the change feed.
package kubegc
