package protocol_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/rackboot/rackboot/cmd/rackboot-agent/protocol"
	"github.com/rackboot/rackboot/engine/models"
)

const ignitionPath = "/api/assisted-install/v2/infra-envs/" + infraEnv + "/hosts/" + hostID + "/downloads/ignition"

// installServer answers the host's Ignition and records progress bodies.
type installServer struct {
	mu       sync.Mutex
	progress []models.HostProgress
	config   string
}

func (s *installServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("X-Secret-Key") != token {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"reason":"bad key `+r.Header.Get("X-Secret-Key")+`"}`)
		return
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == ignitionPath:
		_ = json.NewEncoder(w).Encode(models.HostIgnitionParams{Config: s.config})
	case r.Method == http.MethodPut && r.URL.Path == "/api/assisted-install/v2/infra-envs/"+infraEnv+"/hosts/"+hostID+"/progress":
		var p models.HostProgress
		dec := json.NewDecoder(r.Body)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.progress = append(s.progress, p)
		s.mu.Unlock()
		_, _ = io.WriteString(w, `{}`)
	default:
		w.WriteHeader(http.StatusNotFound)
	}
}

func TestHostIgnitionAndProgress(t *testing.T) {
	is := &installServer{config: `{"ignition":{"version":"3.4.0"}}`}
	srv := httptest.NewServer(is)
	t.Cleanup(srv.Close)
	c := newClient(t, srv.URL, token)
	ctx := context.Background()
	for _, u := range []string{srv.URL + ignitionPath, ignitionPath} {
		got, err := c.HostIgnition(ctx, u)
		if err != nil || got.Config != is.config {
			t.Fatalf("HostIgnition(%s) = %+v, %v", u, got, err)
		}
	}
	want := models.HostProgress{CurrentStage: models.HostStageWritingImageToDisk, ProgressInfo: "35%"}
	if err := c.PutProgress(ctx, hostID, want); err != nil {
		t.Fatal(err)
	}
	if len(is.progress) != 1 || is.progress[0] != want {
		t.Fatalf("progress seen: %+v", is.progress)
	}
	if err := c.PutProgress(ctx, "not-an-id", want); !errors.Is(err, protocol.ErrConfig) {
		t.Fatalf("bad host id: %v", err)
	}
}

func TestHostIgnitionRefusals(t *testing.T) {
	is := &installServer{}
	srv := httptest.NewServer(is)
	t.Cleanup(srv.Close)
	c := newClient(t, srv.URL, token)
	ctx := context.Background()
	// The token goes to the service only: another host or scheme is refused
	// before anything is sent.
	for _, u := range []string{"http://192.0.2.1:8090" + ignitionPath, "https" + strings.TrimPrefix(srv.URL, "http") + ignitionPath,
		"relative/path", "", "http://user:" + token + "@" + strings.TrimPrefix(srv.URL, "http://") + ignitionPath} {
		_, err := c.HostIgnition(ctx, u)
		if !errors.Is(err, protocol.ErrConfig) {
			t.Errorf("HostIgnition(%q): %v, want ErrConfig", u, err)
		}
		if err != nil && strings.Contains(err.Error(), token) {
			t.Errorf("token in error: %v", err)
		}
	}
	// An empty config is an error, not an empty disk partition.
	if _, err := c.HostIgnition(ctx, ignitionPath); !errors.Is(err, protocol.ErrDecode) {
		t.Errorf("empty config: %v", err)
	}
	// A refused token is permanent and not echoed back.
	bad := newClient(t, srv.URL, "other-secret-token")
	_, err := bad.HostIgnition(ctx, ignitionPath)
	if !protocol.IsPermanent(err) || strings.Contains(err.Error(), "other-secret-token") {
		t.Errorf("wrong token: %v", err)
	}
}
