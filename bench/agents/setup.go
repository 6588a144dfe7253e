package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	v35 "github.com/coreos/ignition/v2/config/v3_5"
	"github.com/vincent-petithory/dataurl"

	"github.com/rackboot/rackboot/boot/discovery"
	"github.com/rackboot/rackboot/engine/api"
	"github.com/rackboot/rackboot/engine/models"
)

// ErrSetup: the infra-env or the agent configuration could not be had.
var ErrSetup = errors.New("agents: setup")

// benchPullSecret is a syntactically valid pull secret (no real registry).
const benchPullSecret = `{"auths":{"registry.invalid":{"auth":"YmVuY2g6YmVuY2g="}}}`

// admin calls the user API with the admin token; a status other than want
// is an error. The response body is returned.
func (s *server) admin(ctx context.Context, method, path string, body any, want int) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrSetup, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.base+api.BasePath+path, rd)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSetup, err)
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.client().Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %s %s: %w", ErrSetup, method, path, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(io.LimitReader(resp.Body, 1<<30))
	if err != nil {
		return nil, fmt.Errorf("%w: %s %s: %w", ErrSetup, method, path, err)
	}
	if resp.StatusCode != want {
		return nil, fmt.Errorf("%w: %s %s: %d, want %d: %.200s", ErrSetup, method, path, resp.StatusCode, want, out)
	}
	return out, nil
}

// createInfraEnv creates an infra-env without a cluster (late binding, as
// large fleets are discovered) and returns the agent configuration of its
// discovery.ign, as a booted host reads it from /etc/rackboot/agent.conf.
func (s *server) createInfraEnv(ctx context.Context) (discovery.AgentConfig, error) {
	name, ps := "bench-agents", benchPullSecret
	out, err := s.admin(ctx, http.MethodPost, "/infra-envs",
		models.InfraEnvCreateParams{Name: &name, PullSecret: &ps, CPUArchitecture: "x86_64"}, http.StatusCreated)
	if err != nil {
		return discovery.AgentConfig{}, err
	}
	var ie models.InfraEnv
	if err := json.Unmarshal(out, &ie); err != nil || ie.ID == "" {
		return discovery.AgentConfig{}, fmt.Errorf("%w: infra-env answer: %v", ErrSetup, err)
	}
	ign, err := s.admin(ctx, http.MethodGet, "/infra-envs/"+ie.ID+"/downloads/files?file_name=discovery.ign", nil, http.StatusOK)
	if err != nil {
		return discovery.AgentConfig{}, err
	}
	return agentConfig(ign)
}

// agentConfig finds the agent's configuration file in a discovery Ignition.
func agentConfig(ign []byte) (discovery.AgentConfig, error) {
	var ac discovery.AgentConfig
	cfg, rpt, err := v35.Parse(ign)
	if err != nil {
		return ac, fmt.Errorf("%w: discovery.ign: %w (%s)", ErrSetup, err, rpt.String())
	}
	for _, f := range cfg.Storage.Files {
		if f.Path != discovery.AgentConfigPath || f.Contents.Source == nil {
			continue
		}
		d, err := dataurl.DecodeString(*f.Contents.Source)
		if err != nil {
			return ac, fmt.Errorf("%w: %s: %w", ErrSetup, f.Path, err)
		}
		if err := json.Unmarshal(d.Data, &ac); err != nil {
			return ac, fmt.Errorf("%w: %s: %w", ErrSetup, f.Path, err)
		}
		return ac, nil
	}
	return ac, fmt.Errorf("%w: discovery.ign has no %s", ErrSetup, discovery.AgentConfigPath)
}
