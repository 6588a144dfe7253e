package auth

import (
	"errors"
	"net/http/httptest"
	"testing"
	"time"
)

// A host-scoped token verifies only as one: Verify and Authenticate
// refuse it, so it opens no infra-env or cluster route; it allows the
// progress of its own host and no other.
func TestHostToken(t *testing.T) {
	k := NewKeyRing()
	if _, err := k.Generate(); err != nil {
		t.Fatal(err)
	}
	tok, err := k.NewHostToken("ie-1", "host-1", time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	p, err := k.VerifyHost(tok)
	if err != nil || p.Kind != KindHost || p.HostID != "host-1" || p.InfraEnvID != "ie-1" {
		t.Fatalf("VerifyHost = %+v, %v", p, err)
	}
	if err := p.AllowHost("ie-1", "host-1"); err != nil {
		t.Errorf("own host: %v", err)
	}
	for _, c := range [][2]string{{"ie-1", "host-2"}, {"ie-2", "host-1"}} {
		if err := p.AllowHost(c[0], c[1]); !errors.Is(err, ErrForbidden) {
			t.Errorf("host %v: %v", c, err)
		}
	}
	if err := p.AllowInfraEnv("ie-1"); !errors.Is(err, ErrForbidden) {
		t.Errorf("a host token allows its infra-env: %v", err)
	}
	if _, err := k.Verify(tok); !errors.Is(err, ErrInvalidToken) {
		t.Errorf("Verify accepted a host token: %v", err)
	}
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set(HeaderAgentKey, tok)
	if p, err := Authenticate(r, "admin", k); !errors.Is(err, ErrInvalidToken) {
		t.Errorf("Authenticate = %+v, %v", p, err)
	}
	agent, err := k.Sign(Claims{InfraEnvID: "ie-1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.VerifyHost(agent); !errors.Is(err, ErrInvalidToken) {
		t.Errorf("VerifyHost accepted an agent token: %v", err)
	}
	if _, err := k.NewHostToken("", "host-1", time.Time{}); err == nil {
		t.Error("a host token without an infra-env")
	}
	if _, err := k.Sign(Claims{HostID: "h", ClusterID: "c"}); err == nil {
		t.Error("a host token without an infra-env")
	}
	expired, _ := k.NewHostToken("ie-1", "host-1", time.Now().Add(-time.Hour))
	if _, err := k.VerifyHost(expired); !errors.Is(err, ErrExpiredToken) {
		t.Errorf("expired: %v", err)
	}
}
