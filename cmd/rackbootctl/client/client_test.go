package client_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
	"github.com/rackboot/rackboot/cmd/rackbootctl/internal/testserver"
)

const pullSecret = `{"auths":{"registry.example.com":{"auth":"c2VjcmV0LXVzZXI6c2VjcmV0LXBhc3M="}}}`

func newClient(t *testing.T, url, token string) *client.Client {
	t.Helper()
	c, err := client.New(client.Config{URL: url, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestNewRejectsBadConfig(t *testing.T) {
	for _, cfg := range []client.Config{
		{URL: "ftp://x"}, {URL: "127.0.0.1:8080"}, {URL: "http://u:p@h/"}, {URL: "http://h/?a=b"},
		{URL: "http://h", Token: "a b"}, {URL: "http://h", Token: "a\nb"},
	} {
		if _, err := client.New(cfg); !errors.Is(err, client.ErrConfig) {
			t.Errorf("New(%q) = %v, want ErrConfig", cfg.URL, err)
		}
	}
	c := newClient(t, "http://127.0.0.1:1/api/assisted-install/v2/", "")
	if c.BaseURL() != "http://127.0.0.1:1" {
		t.Errorf("BaseURL = %q", c.BaseURL())
	}
}

// The whole user flow against the real handler: infra-env and cluster
// created, a host registers like the agent, is approved, patched, bound,
// unbound and deleted; events record it.
func TestFlowAgainstRealAPI(t *testing.T) {
	ctx := context.Background()
	srv := testserver.Start(t)
	c := newClient(t, srv.URL, srv.Token)

	cl, err := c.CreateCluster(ctx, client.ClusterCreateParams{Name: new("prod"), OpenshiftVersion: new("4.16"),
		BaseDNSDomain: "example.com", ControlPlaneCount: new(int64(3)), PullSecret: new(pullSecret)})
	if err != nil {
		t.Fatal(err)
	}
	if cl.Name != "prod" || cl.ID == "" || !cl.PullSecretSet || cl.Status == "" {
		t.Errorf("created cluster %+v", cl)
	}
	ie, err := c.CreateInfraEnv(ctx, client.InfraEnvCreateParams{Name: new("lab"), PullSecret: new(pullSecret),
		SSHAuthorizedKey: new("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOmz5H7Sx3X8lD1PCZ3xLQ7XB9zYQn8v5m2pZ9kW3cJ4 test")})
	if err != nil {
		t.Fatal(err)
	}
	envs, err := c.ListInfraEnvs(ctx)
	if err != nil || len(envs) != 1 || envs[0].ID != ie.ID || envs[0].Name != "lab" {
		t.Fatalf("ListInfraEnvs = %+v, %v", envs, err)
	}

	var ign bytes.Buffer
	if _, err := c.DownloadInfraEnvFile(ctx, ie.ID, client.FileDiscoveryIgnition, &ign); err != nil {
		t.Fatal(err)
	}
	ac, err := testserver.AgentConfig(ign.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	const hostID = "aaaaaaaa-0000-4000-8000-000000000001"
	if err := testserver.Register(ctx, ac, hostID); err != nil {
		t.Fatal(err)
	}
	h, err := c.FindHost(ctx, hostID)
	if err != nil || h.InfraEnvID != ie.ID || h.Approved {
		t.Fatalf("FindHost = %+v, %v", h, err)
	}
	yes, name, role := true, "node-1", "master"
	if _, err := c.UpdateHost(ctx, ie.ID, hostID, client.HostUpdateParams{Approved: &yes}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateHost(ctx, ie.ID, hostID, client.HostUpdateParams{HostName: &name, HostRole: &role}); err != nil {
		t.Fatal(err)
	}
	h, err = c.GetHost(ctx, ie.ID, hostID)
	if err != nil || !h.Approved || h.RequestedHostname != name || string(h.Role) != role {
		t.Errorf("after update: %+v, %v", h, err)
	}
	if h, err = c.BindHost(ctx, ie.ID, hostID, cl.ID); err != nil || h.ClusterID != cl.ID {
		t.Fatalf("BindHost = %+v, %v", h, err)
	}
	if h, err = c.UnbindHost(ctx, ie.ID, hostID); err != nil || h.ClusterID != "" {
		t.Fatalf("UnbindHost = %+v, %v", h, err)
	}
	evs, err := c.ListEvents(ctx, client.EventFilter{HostID: hostID})
	if err != nil || len(evs) == 0 {
		t.Fatalf("ListEvents = %d events, %v", len(evs), err)
	}
	if err := c.DeleteHost(ctx, ie.ID, hostID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.FindHost(ctx, hostID); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("FindHost after delete = %v, want ErrNotFound", err)
	}
	u, err := c.ImageURL(ctx, ie.ID)
	if err != nil || !strings.HasPrefix(u.URL, srv.URL+"/api/assisted-install/v2/infra-envs/"+ie.ID) {
		t.Errorf("ImageURL = %+v, %v", u, err)
	}
	if v, err := c.ServerVersion(ctx); err != nil || v == "" {
		t.Errorf("ServerVersion = %q, %v", v, err)
	}
	if err := c.DeleteInfraEnv(ctx, ie.ID); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteCluster(ctx, cl.ID); err != nil {
		t.Fatal(err)
	}
	if cs, err := c.ListClusters(ctx); err != nil || len(cs) != 0 {
		t.Errorf("ListClusters after delete = %+v, %v", cs, err)
	}
}

// Error answers become *APIError with the status and the server's reason,
// matching the sentinels; the token never shows.
func TestAPIErrors(t *testing.T) {
	ctx := context.Background()
	srv := testserver.Start(t)
	c := newClient(t, srv.URL, srv.Token)

	_, err := c.GetCluster(ctx, "cccccccc-0000-4000-8000-000000000000")
	var ae *client.APIError
	if !errors.As(err, &ae) || ae.Status != http.StatusNotFound || !errors.Is(err, client.ErrNotFound) || ae.Reason == "" {
		t.Errorf("missing cluster: %#v", err)
	}
	_, err = c.CreateInfraEnv(ctx, client.InfraEnvCreateParams{Name: new("x"), PullSecret: new("not json")})
	if !errors.Is(err, client.ErrBadRequest) || !errors.As(err, &ae) || ae.Reason == "" {
		t.Errorf("bad pull secret: %v", err)
	}
	if strings.Contains(err.Error(), "not json") {
		t.Errorf("error echoes the pull secret: %v", err)
	}

	wrong := newClient(t, srv.URL, "wrong-token-value")
	_, err = wrong.ListClusters(ctx)
	if !errors.Is(err, client.ErrUnauthorized) {
		t.Errorf("wrong token: %v, want ErrUnauthorized", err)
	}
	if strings.Contains(fmt.Sprintf("%v %#v", err, err), "wrong-token-value") {
		t.Errorf("error shows the token: %v", err)
	}
}

func TestNetworkErrorIsWrapped(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, err = newClient(t, "http://"+addr, "secret-token").ListClusters(context.Background())
	var op *net.OpError
	if !errors.As(err, &op) {
		t.Errorf("refused connection: %v, want a *net.OpError inside", err)
	}
	if strings.Contains(err.Error(), "secret-token") {
		t.Errorf("error shows the token: %v", err)
	}
}

// The create parameters print without their pull secret.
func TestParamsHideSecrets(t *testing.T) {
	for _, v := range []any{
		client.ClusterCreateParams{Name: new("a"), PullSecret: new(pullSecret)},
		client.InfraEnvCreateParams{Name: new("a"), PullSecret: new(pullSecret)},
		client.InfraEnvUpdateParams{PullSecret: new(pullSecret)},
		client.Credentials{Username: "kubeadmin", Password: "auths-password"},
	} {
		for _, format := range []string{"%v", "%+v", "%s", "%#v"} {
			if s := fmt.Sprintf(format, v); strings.Contains(s, "auths") {
				t.Errorf("%T prints its secret with %s: %s", v, format, s)
			}
		}
	}
}
