package bootsel_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/boot/discovery"
	"github.com/rackboot/rackboot/engine/api"
	"github.com/rackboot/rackboot/engine/auth"
)

// The token a booting host finds in its initrd is accepted by the REST API
// (one key ring, engine.LoadKeyRing, shared by both) for its own
// infra-env, and refused for another.
func TestServedTokenAuthenticatesWithTheAPI(t *testing.T) {
	e := newEnv(t, nil)
	boot := serve(t, e)
	h, err := api.New(api.Options{Store: e.st, AdminToken: "admin-token-for-test", Keys: e.keys, ServiceURL: service})
	if err != nil {
		t.Fatal(err)
	}
	apiSrv := httptest.NewServer(h)
	t.Cleanup(apiSrv.Close)

	_, initrd := get(t, boot, "/boot/"+hexhyp(nmMAC)+"/initrd")
	var ac discovery.AgentConfig
	if err := json.Unmarshal([]byte(ignFiles(t, servedIgn(t, initrd, e.baseRD))[discovery.AgentConfigPath]), &ac); err != nil {
		t.Fatal(err)
	}
	register := func(ie string) int {
		req, err := http.NewRequest(http.MethodPost, apiSrv.URL+api.BasePath+"/infra-envs/"+ie+"/hosts",
			strings.NewReader(`{"host_id":"dddddddd-0000-4000-8000-000000000004","discovery_agent_version":"test"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(auth.HeaderAgentKey, ac.Token)
		resp, err := apiSrv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := register(ieB); code != http.StatusUnauthorized && code != http.StatusForbidden {
		t.Fatalf("infra-env A's token registered a host in infra-env B: %d", code)
	}
	if code := register(ac.InfraEnvID); code != http.StatusCreated {
		t.Fatalf("registering with the served token: %d, want 201", code)
	}
}
