package main

import (
	"testing"
	"time"
)

// kubectl -v=6's log gives the list requests, their time and the waits
// of its client-side rate limiter (kubectl v1.32's lines).
func TestParseV6(t *testing.T) {
	log := []byte(`I1127 07:00:22.846318    3629 loader.go:402] Config loaded from file:  /tmp/k/kubeconfig
I1127 07:00:22.881318    3629 round_trippers.go:560] GET https://127.0.0.1:44659/apis/agent-install.openshift.io/v1beta1/agents?limit=500 200 OK in 33 milliseconds
I1127 07:00:23.448455    3629 request.go:661] Waited for 165.319884ms due to client-side throttling, not priority and fairness, request: GET:https://127.0.0.1:44659/apis/agent-install.openshift.io/v1beta1/agents?continue=x&limit=500
I1127 07:00:23.465294    3629 round_trippers.go:560] GET https://127.0.0.1:44659/apis/agent-install.openshift.io/v1beta1/agents?continue=x&limit=500 200 OK in 16 milliseconds
I1127 07:00:25.048904    3629 request.go:661] Waited for 1.5s due to client-side throttling, not priority and fairness, request: GET:https://127.0.0.1:44659/apis/agent-install.openshift.io/v1beta1/agents?continue=y&limit=500
`)
	n, server, waited := parseV6(log)
	if n != 2 || server != 49*time.Millisecond || waited != 1665319884*time.Nanosecond {
		t.Errorf("parsed %d requests, %s, %s waited; want 2, 49ms, 1.665319884s", n, server, waited)
	}
}
