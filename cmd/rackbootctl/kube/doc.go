// Package kube is rackbootctl's client of rackbootd's Kubernetes-compatible
// API (engine/kubeapi, docs/kube-api.md): discovery of the served kinds
// and the names a user may type for them, get/list/Table, create, merge
// patch, delete and watch, kubectl's client-side apply (the
// last-applied-configuration annotation and a three-way JSON merge
// patch), and reading manifests (files, directories, standard input,
// multi-document YAML) in the order their kinds depend on each other.
// It speaks JSON over the same base URL and admin token as package
// client; errors are the server's metav1.Status as *StatusError.
package kube
