// Package apitls lets rackbootd's HTTP listener speak HTTPS too: a
// self-signed certificate made on first start (api.crt and api.key under
// data_dir; the certificate is its own CA, so a kubeconfig names it as
// certificate-authority-data) and a listener that hands each connection
// to TLS when its first byte starts a TLS handshake and serves it as
// plain HTTP otherwise. kubectl sends its bearer token only over TLS,
// so the Kubernetes-compatible API needs it; the boot clients (iPXE,
// agents) keep plain HTTP on the same port.
package apitls
