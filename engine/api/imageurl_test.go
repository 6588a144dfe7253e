package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine/models"
)

// isoStub hands out a fixed ISO URL (ok) or none, recording the expiry
// it was asked for.
type isoStub struct {
	ok  bool
	err error
	exp time.Time
}

func (s *isoStub) DiscoveryISOURL(_ context.Context, id string, exp time.Time) (string, bool, error) {
	s.exp = exp
	if s.err != nil || !s.ok {
		return "", false, s.err
	}
	return "http://10.55.0.1:8080/images/" + id + "/tok/discovery.iso", true, nil
}

// downloads/image-url is the discovery ISO's URL when there is an ISO (as
// upstream's), valid for the image URL lifetime; without one it is the
// iPXE script's URL; the ISO server's failure is the API's.
func TestImageURLIsTheDiscoveryISO(t *testing.T) {
	e := newMemEnv(t)
	ie := e.createInfraEnv("")
	isos := &isoStub{ok: true}
	h, err := New(Options{Store: e.store, AdminToken: testAdmin, Keys: e.keys, ServiceURL: "http://10.55.0.1:8090", ISOs: isos})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	get := func() (int, models.PresignedURL) {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.URL+BasePath+"/infra-envs/"+ie.ID+"/downloads/image-url", nil)
		req.Header.Set("Authorization", "Bearer "+testAdmin)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var u models.PresignedURL
		_ = json.NewDecoder(res.Body).Decode(&u)
		return res.StatusCode, u
	}
	code, u := get()
	if code != 200 || u.URL != "http://10.55.0.1:8080/images/"+ie.ID+"/tok/discovery.iso" || isos.exp.Sub(u.ExpiresAt.Time()).Abs() > time.Second ||
		time.Until(isos.exp) < DefaultImageURLTTL-time.Minute {
		t.Fatalf("with an ISO: %d %+v (asked to expire at %s)", code, u, isos.exp)
	}
	isos.ok = false
	if code, u := get(); code != 200 || !strings.Contains(u.URL, "file_name=ipxe-script") {
		t.Fatalf("without an ISO: %d %+v", code, u)
	}
	isos.err = errors.New("iso server broke")
	if code, _ := get(); code != http.StatusInternalServerError {
		t.Fatalf("ISO server failing: %d", code)
	}
}
