package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/rackboot/rackboot/boot/discovery"
)

// The -kube mode (make bench-kube): the 10,000 hosts register through the
// REST agent API from an InfraEnv made with kubectl, the acm controller
// makes their Agents, and then the Kubernetes-compatible API is measured
// with real kubectl (`kubectl get agents -A`) and 100 watchers
// (kubewatch.go); kubereport.go writes the section.

// ErrKube: a kubectl step of the setup failed.
var ErrKube = errors.New("agents: kube")

// kubeNS is the namespace of the bench's InfraEnv and its Agents.
const kubeNS = "bench"

// agentsPath is the Agents of every namespace.
const agentsPath = "/apis/agent-install.openshift.io/v1beta1/agents"

// kube is kubectl and a Go client against one rackbootd's Kubernetes API.
type kube struct {
	kubectl string
	home    string   // HOME and KUBECONFIG's directory
	env     []string // kubectl's environment
	base    string   // https://127.0.0.1:port
	token   string
	http    *http.Client // HTTPS with the API certificate, as kubectl
}

// newKube writes the kubeconfig that `rackbootctl kubeconfig` prints for
// srv (rackbootctl beside the rackbootd binary) and a Go client with the
// same server, CA and token.
func newKube(ctx context.Context, o options, srv *server, work string) (*kube, error) {
	home := filepath.Join(work, "kube")
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, err
	}
	ctl := filepath.Join(filepath.Dir(o.bin), "rackbootctl")
	cmd := exec.CommandContext(ctx, ctl, "--url", srv.base, "--data-dir", srv.dataDir, "kubeconfig")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	kc, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%w: rackbootctl kubeconfig: %w: %s", ErrKube, err, stderr.String())
	}
	if err := os.WriteFile(filepath.Join(home, "kubeconfig"), kc, 0o600); err != nil {
		return nil, err
	}
	pem, err := os.ReadFile(filepath.Join(srv.dataDir, "api.crt"))
	if err != nil {
		return nil, fmt.Errorf("%w: the API certificate: %w", ErrKube, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%w: api.crt holds no certificate", ErrKube)
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	t.MaxIdleConnsPerHost = 200
	return &kube{kubectl: o.kubectl, home: home, token: srv.token,
		env:  append(os.Environ(), "KUBECONFIG="+filepath.Join(home, "kubeconfig"), "HOME="+home),
		base: "https://" + strings.TrimPrefix(srv.base, "http://"), http: &http.Client{Transport: t}}, nil
}

// run runs kubectl; the error carries its stderr.
func (k *kube) run(ctx context.Context, args ...string) (stdout, stderr []byte, err error) {
	cmd := exec.CommandContext(ctx, k.kubectl, args...)
	cmd.Env = k.env
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		return o.Bytes(), e.Bytes(), fmt.Errorf("%w: kubectl %s: %w: %s", ErrKube, strings.Join(args, " "), err, e.String())
	}
	return o.Bytes(), e.Bytes(), nil
}

// infraEnvManifest is the InfraEnv the hosts boot from (late binding),
// with its pull secret, as seed 002 writes them.
const infraEnvManifest = `apiVersion: agent-install.openshift.io/v1beta1
kind: InfraEnv
metadata:
  name: bench
  namespace: bench
spec:
  pullSecretRef:
    name: pull-secret
  cpuArchitecture: x86_64
`

// createInfraEnv creates the namespace, the pull secret and the InfraEnv
// with kubectl, waits for the acm controller's infra-env (whose id is the
// InfraEnv's uid) and returns the agent configuration of its
// discovery.ign, as a booted host reads it.
func (k *kube) createInfraEnv(ctx context.Context, srv *server) (discovery.AgentConfig, error) {
	ps := filepath.Join(k.home, "pull-secret.json")
	ie := filepath.Join(k.home, "infraenv.yaml")
	if err := os.WriteFile(ps, []byte(benchPullSecret), 0o600); err != nil {
		return discovery.AgentConfig{}, err
	}
	if err := os.WriteFile(ie, []byte(infraEnvManifest), 0o600); err != nil {
		return discovery.AgentConfig{}, err
	}
	for _, args := range [][]string{{"create", "namespace", kubeNS},
		{"create", "secret", "generic", "pull-secret", "-n", kubeNS, "--from-file=.dockerconfigjson=" + ps, "--type=kubernetes.io/dockerconfigjson"},
		{"apply", "-f", ie},
		{"wait", "--for=condition=ImageCreated", "infraenv/bench", "-n", kubeNS, "--timeout=60s"}} {
		if _, _, err := k.run(ctx, args...); err != nil {
			return discovery.AgentConfig{}, err
		}
	}
	uid, _, err := k.run(ctx, "get", "infraenv", "bench", "-n", kubeNS, "-o", "jsonpath={.metadata.uid}")
	if err != nil {
		return discovery.AgentConfig{}, err
	}
	ign, err := srv.admin(ctx, http.MethodGet, "/infra-envs/"+string(uid)+"/downloads/files?file_name=discovery.ign", nil, http.StatusOK)
	if err != nil {
		return discovery.AgentConfig{}, err
	}
	return agentConfig(ign)
}

// get asks the API for path with accept and returns the body.
func (k *kube) get(ctx context.Context, path, accept string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.base+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+k.token)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := k.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: GET %s: %w", ErrKube, path, err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(resp.Body); err != nil {
		return nil, fmt.Errorf("%w: GET %s: %w", ErrKube, path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: GET %s: %s: %.200s", ErrKube, path, resp.Status, b.Bytes())
	}
	return b.Bytes(), nil
}

// agentList is the part of an Agent list the bench reads.
type agentList struct {
	Metadata struct {
		ResourceVersion string `json:"resourceVersion"`
	} `json:"metadata"`
	Items []struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
	} `json:"items"`
}

// listAgents lists every Agent (JSON) and returns the list and its size.
func (k *kube) listAgents(ctx context.Context) (agentList, int, error) {
	var l agentList
	b, err := k.get(ctx, agentsPath, "application/json")
	if err != nil {
		return l, 0, err
	}
	if err := json.Unmarshal(b, &l); err != nil {
		return l, len(b), fmt.Errorf("%w: Agent list: %w", ErrKube, err)
	}
	return l, len(b), nil
}

// countAgents counts the Agents with the Table form (one row each,
// without the objects: a tenth of the JSON list).
func (k *kube) countAgents(ctx context.Context) (int, error) {
	b, err := k.get(ctx, agentsPath, tableAccept)
	if err != nil {
		return 0, err
	}
	var t struct {
		Rows []json.RawMessage `json:"rows"`
	}
	if err := json.Unmarshal(b, &t); err != nil {
		return 0, fmt.Errorf("%w: Agent table: %w", ErrKube, err)
	}
	return len(t.Rows), nil
}

// waitAgents waits until n Agents exist (the acm controller makes them as
// the hosts register) and returns when it saw the last.
func (k *kube) waitAgents(ctx context.Context, n int, limit time.Duration) (time.Time, error) {
	deadline := time.Now().Add(limit)
	for {
		got, err := k.countAgents(ctx)
		if err == nil && got >= n {
			return time.Now(), nil
		}
		if time.Now().After(deadline) {
			return time.Now(), fmt.Errorf("%w: %d of %d Agents after %s (%v)", ErrKube, got, n, limit, err)
		}
		select {
		case <-ctx.Done():
			return time.Now(), ctx.Err()
		case <-time.After(5 * time.Second):
		}
	}
}
