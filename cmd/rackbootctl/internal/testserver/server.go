package testserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	v35 "github.com/coreos/ignition/v2/config/v3_5"
	"github.com/vincent-petithory/dataurl"

	"github.com/rackboot/rackboot/boot/discovery"
	"github.com/rackboot/rackboot/cmd/rackboot-agent/protocol"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/api"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/enginetest"
	"github.com/rackboot/rackboot/engine/models"
)

// ErrNoAgentConfig: a discovery Ignition without the agent's config.
var ErrNoAgentConfig = errors.New("testserver: no agent config in the Ignition")

// Server is a running API.
type Server struct {
	// URL is the base URL (http://127.0.0.1:port, no API path).
	URL string
	// Token is the admin token.
	Token string
	Store *enginetest.Store
	Keys  *auth.KeyRing
}

// Start runs the API until the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	tok, err := auth.NewAdminToken()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(nil)
	url := "http://" + srv.Listener.Addr().String()
	store := enginetest.NewStore()
	keys, err := engine.LoadKeyRing(t.Context(), store) // stored in the state, as rackbootd's
	if err != nil {
		t.Fatal(err)
	}
	sealer, err := engine.NewSealer(make([]byte, 32)) // BMC credentials (create bmh)
	if err != nil {
		t.Fatal(err)
	}
	h, err := api.New(api.Options{Store: store, AdminToken: tok, Keys: keys, ServiceURL: url, Sealer: sealer})
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = h
	srv.Start()
	t.Cleanup(srv.Close)
	return &Server{URL: url, Token: tok, Store: store, Keys: keys}
}

// AgentConfig parses ign as Ignition (spec 3.x, validated by the
// Ignition library) and returns the agent config it carries.
func AgentConfig(ign []byte) (discovery.AgentConfig, error) {
	var ac discovery.AgentConfig
	cfg, rpt, err := v35.Parse(ign)
	if err != nil {
		return ac, fmt.Errorf("invalid Ignition: %w (%s)", err, rpt.String())
	}
	for _, f := range cfg.Storage.Files {
		if f.Path != discovery.AgentConfigPath || f.Contents.Source == nil {
			continue
		}
		d, err := dataurl.DecodeString(*f.Contents.Source)
		if err != nil {
			return ac, fmt.Errorf("agent config data URL: %w", err)
		}
		if err := json.Unmarshal(d.Data, &ac); err != nil {
			return ac, fmt.Errorf("agent config JSON: %w", err)
		}
		return ac, nil
	}
	return ac, ErrNoAgentConfig
}

// agentClient is the agent's protocol client for ac.
func agentClient(ac discovery.AgentConfig) (*protocol.Client, error) {
	return protocol.New(protocol.Config{URL: ac.ServiceURL, InfraEnvID: ac.InfraEnvID, Token: ac.Token,
		AgentVersion: "rackbootctl-test"})
}

// PostInventory answers hostID's inventory step with inv, the way
// rackboot-agent does: it asks for its next steps and replies to the
// inventory step.
func PostInventory(ctx context.Context, ac discovery.AgentConfig, hostID string, inv *models.Inventory) error {
	c, err := agentClient(ac)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	steps, err := c.NextSteps(ctx, hostID, time.Now())
	if err != nil {
		return err
	}
	stepID := ""
	for _, st := range steps.Instructions {
		if st.StepType == models.StepTypeInventory {
			stepID = st.StepID
		}
	}
	if stepID == "" {
		return fmt.Errorf("testserver: host %s was not asked for its inventory", hostID)
	}
	out, err := json.Marshal(inv)
	if err != nil {
		return err
	}
	return c.PostReply(ctx, hostID, &models.StepReply{StepType: models.StepTypeInventory, StepID: stepID, Output: string(out)})
}

// Register registers hostID the way rackboot-agent does, with the
// service URL, infra-env and token of ac.
func Register(ctx context.Context, ac discovery.AgentConfig, hostID string) error {
	c, err := agentClient(ac)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	_, err = c.Register(ctx, hostID)
	return err
}
