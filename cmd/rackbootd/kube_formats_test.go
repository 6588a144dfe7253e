package main

import (
	"testing"
)

// TestKubectlFormats: the date-time and byte formats are checked as
// kube-apiserver checks them: in a custom resource by the schema's
// format (422, "must be of type date-time"), in the v1 kinds by decoding
// into their Go types (400, "cannot be handled as a Secret: illegal base64
// data"; a time not RFC 3339); nothing refused is written.
func TestKubectlFormats(t *testing.T) {
	k := newKubeTest(t)
	k.must("create", "namespace", "fmts")
	secret := writeFile(t, k.home, "secret.yaml", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: fmts\ndata:\n  ok: aGk=\n  bad: \"a*b=\"\n")
	k.fails(`: Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 1`, "create", "-f", secret)
	k.fails(`Error from server (NotFound): secrets "s" not found`, "get", "secret", "s", "-n", "fmts")
	cm := writeFile(t, k.home, "cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: fmts\nbinaryData:\n  bin: \"%%%%\"\n")
	k.fails(`: ConfigMap in version "v1" cannot be handled as a ConfigMap: illegal base64 data at input byte 0`, "apply", "-f", cm)

	k.fails(`Error from server (BadRequest): Namespace in version "v1" cannot be handled as a Namespace: parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"`,
		"patch", "ns", "fmts", "--subresource=status", "--type", "merge",
		"-p", `{"status":{"conditions":[{"type":"Checked","status":"True","lastTransitionTime":"yesterday"}]}}`)

	ie := writeFile(t, k.home, "ie.yaml", "apiVersion: agent-install.openshift.io/v1beta1\nkind: InfraEnv\nmetadata:\n  name: ie\n  namespace: fmts\nspec:\n  pullSecretRef:\n    name: ps\n")
	k.must("create", "-f", ie)
	k.fails(`The InfraEnv "ie" is invalid: status.createdTime: Invalid value: "yesterday": status.createdTime in body must be of type date-time: "yesterday"`,
		"patch", "infraenv", "ie", "-n", "fmts", "--subresource=status", "--type", "merge", "-p", `{"status":{"createdTime":"yesterday"}}`)
	k.must("patch", "infraenv", "ie", "-n", "fmts", "--subresource=status", "--type", "merge", "-p", `{"status":{"createdTime":"2026-11-27T07:00:00Z"}}`)
}
