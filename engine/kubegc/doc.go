// Package kubegc is the garbage collector of the Kubernetes-compatible
// API's objects, as kube-controller-manager's background collector: an
// object whose metadata.ownerReferences name owners none of which exists
// any more (an owner of the same kind and name with another uid is
// another object) is deleted (with its finalizers, it is marked for
// deletion). The owner is looked up in the dependent's namespace, then
// among the cluster-scoped objects. It runs on the leader, after every
// object deletion; blockOwnerDeletion and foreground deletion are not
// implemented (an owner goes at once, its dependents after it).
package kubegc
