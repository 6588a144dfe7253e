package main

import (
	"strings"
	"testing"
)

// TestKubectlWatchList: kubectl's informers (here kubectl wait's) with
// client-go's WatchListClient on stream the initial state through one
// watch (sendInitialEvents=true, allowWatchBookmarks=true,
// resourceVersionMatch=NotOlderThan) and take its initial-events-end
// bookmark as the end of the list, as against kube-apiserver.
func TestKubectlWatchList(t *testing.T) {
	k := newKubeTest(t)
	k.must("create", "namespace", "wl")
	k.must("create", "configmap", "c", "-n", "wl", "--from-literal=k=v")
	k.env = append(k.env, "KUBE_FEATURE_WatchListClient=true")
	out, log, ok := k.run("wait", "--for=jsonpath={.data.k}=v", "configmap/c", "-n", "wl", "--timeout=30s", "-v=6")
	if !ok {
		t.Fatalf("kubectl wait: %s%s", out, log)
	}
	wantLines(t, "wait", out, "configmap/c condition met")
	if !strings.Contains(log, "sendInitialEvents=true") || !strings.Contains(log, "200 OK") {
		t.Errorf("kubectl did not stream its list through a watch:\n%s", log)
	}
}
