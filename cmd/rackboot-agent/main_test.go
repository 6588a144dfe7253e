package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"net/http/httptest"

	"github.com/rackboot/rackboot/cmd/rackboot-agent/internal/fakesvc"
	"github.com/rackboot/rackboot/engine/models"
)

const (
	infraEnv = "7c3f1d2e-1111-4222-8333-444455556666"
	hostID   = "0d8e5b2a-aaaa-bbbb-cccc-ddddeeeeffff"
	token    = "eyJhbGciOiJFUzI1NiJ9.main-test-secret.sig"
)

// buildAgent builds the static binary the discovery image ships.
func buildAgent(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "rackboot-agent")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func writeConfig(t *testing.T, doc string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "agent.json")
	if err := os.WriteFile(p, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBinaryRegistersAndSendsInventory(t *testing.T) {
	bin := buildAgent(t)
	svc := fakesvc.New(infraEnv, token)
	srv := httptest.NewServer(svc.Handler())
	defer srv.Close()
	svc.Push(models.Steps{Instructions: []*models.Step{
		{StepID: "inventory-1a2b3c4d", StepType: models.StepTypeInventory, Args: []string{hostID}},
		{StepID: "domain-resolution-1a2b3c4d", StepType: models.StepTypeDomainResolution, Args: []string{`{"domains":[{"domain_name":"localhost"}]}`}},
		{StepID: "ntp-synchronizer-1a2b3c4d", StepType: models.StepTypeNtpSynchronizer, Args: []string{`{"ntp_source":""}`}},
		{StepID: "connectivity-check-1a2b3c4d", StepType: models.StepTypeConnectivityCheck, Args: []string{`[{"host_id":"peer","nics":[{"ip_addresses":["127.0.0.1/8"]}]}]`}},
	}, NextInstructionSeconds: 60})
	const wantReplies = 4
	cfg := writeConfig(t, `{"service_url":"`+srv.URL+`","infra_env_id":"`+infraEnv+`","token":"`+token+`"}`)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "--config", cfg, "--host-id", hostID, "--log-level", "DEBUG")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for len(svc.Replies()) < wantReplies {
		select {
		case <-svc.Changed:
		case <-ctx.Done():
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("no replies; agent said:\n%s", stderr.String())
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("agent exit after SIGTERM: %v\n%s", err, stderr.String())
	}
	reqs := svc.Requests()
	if reqs[0].Path != "/api/assisted-install/v2/infra-envs/"+infraEnv+"/hosts" ||
		!strings.Contains(string(reqs[0].Body), `"host_id":"`+hostID+`"`) ||
		!strings.Contains(string(reqs[0].Body), `"discovery_agent_version":"rackboot-agent-dev"`) {
		t.Errorf("registration %s %s", reqs[0].Path, reqs[0].Body)
	}
	outputs := map[models.StepType]string{}
	for _, r := range svc.Replies() {
		outputs[r.StepType] = r.Output
		rootOnly := r.StepType == models.StepTypeConnectivityCheck && os.Geteuid() != 0
		if (r.ExitCode != 0 || r.Output == "") && !rootOnly {
			t.Errorf("reply %+v", r)
		}
	}
	// The appliance's clock, measured from its Date headers, is the only
	// time source here, and it is this machine's.
	appliance := strings.TrimPrefix(srv.URL, "http://")
	if want := `{"ntp_sources":[{"source_name":"` + appliance + `","source_state":"synced"}]}`; outputs[models.StepTypeNtpSynchronizer] != want {
		t.Errorf("ntp output %s, want %s", outputs[models.StepTypeNtpSynchronizer], want)
	}
	if os.Geteuid() == 0 && !strings.Contains(outputs[models.StepTypeConnectivityCheck], `"outgoing_nic":"lo","remote_ip_address":"127.0.0.1","successful":true`) {
		t.Errorf("connectivity output %s", outputs[models.StepTypeConnectivityCheck])
	}
	if strings.Contains(stderr.String(), token) || strings.Contains(stderr.String(), "main-test-secret") {
		t.Errorf("the token reached the agent's log:\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "token_set=true") || !strings.Contains(stderr.String(), "host registered") {
		t.Errorf("log:\n%s", stderr.String())
	}
}

func TestBinaryStopsWhenRefused(t *testing.T) {
	bin := buildAgent(t)
	svc := fakesvc.New(infraEnv, "the-right-token")
	srv := httptest.NewServer(svc.Handler())
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "--url", srv.URL, "--infra-env-id", infraEnv, "--host-id", hostID)
	cmd.Env = []string{"RACKBOOT_TOKEN=" + token}
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitRefused {
		t.Fatalf("exit %v, want %d\n%s", err, exitRefused, stderr.String())
	}
	if !strings.Contains(stderr.String(), "refused this agent") || !strings.Contains(stderr.String(), "401") {
		t.Errorf("log:\n%s", stderr.String())
	}
	// The fake echoes the wrong key in its error reason; the agent redacts it.
	if strings.Contains(stderr.String(), token) {
		t.Errorf("the token reached the log:\n%s", stderr.String())
	}
}

func TestConfigPrecedence(t *testing.T) {
	cfgFile := writeConfig(t, `{"service_url":"http://file:1","infra_env_id":"`+infraEnv+`","token":"file-token"}`)
	env := map[string]string{"RACKBOOT_URL": "http://env:2", "PULL_SECRET_TOKEN": "env-token"}
	o, err := parseFlags([]string{"--config", cfgFile, "--url", "http://flag:3"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := loadConfig(o, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if c.URL != "http://flag:3" || c.Token != "env-token" || c.InfraEnvID != infraEnv || c.AgentVersion != version {
		t.Fatalf("%v", c)
	}
}

func TestConfigErrorsExit2(t *testing.T) {
	var stderr bytes.Buffer
	for _, args := range [][]string{
		{"--url", "http://127.0.0.1:1"},                                                   // no infra-env
		{"--url", "gopher://x", "--infra-env-id", infraEnv},                               // bad URL
		{"--config", filepath.Join(t.TempDir(), "missing.json")},                          // missing file
		{"--url", "http://127.0.0.1:1", "--infra-env-id", infraEnv, "--host-id", "../.."}, // bad host id
		{"stray"},
	} {
		stderr.Reset()
		if code := run(context.Background(), args, func(string) string { return "" }, &stderr); code != exitConfig {
			t.Errorf("%v: exit %d, want %d\n%s", args, code, exitConfig, stderr.String())
		}
	}
}
