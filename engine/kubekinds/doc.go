// Package kubekinds names the kinds the Kubernetes-compatible API serves
// (engine/kubeapi) with upstream's groups, versions, names and scopes: one
// list that the API (which adds printer columns and schemas) and the
// ownerReferences garbage collector (engine/kubegc, which looks owners up
// by it) both read. It imports nothing.
package kubekinds
