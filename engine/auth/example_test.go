package auth_test

import (
	"fmt"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine/auth"
)

// An infra-env's token is handed to its hosts; after a rotation it still
// works until its key is retired.
func ExampleKeyRing() {
	ring := auth.NewKeyRing()
	if _, err := ring.Generate(); err != nil {
		panic(err)
	}
	tok, _ := ring.Sign(auth.Claims{InfraEnvID: "0b6f1f6e-0f6c-4d38-9d5f-7a1c3c1b2e4d"})

	r := httptest.NewRequest("GET", "/api/assisted-install/v2/infra-envs/x/hosts", nil)
	r.Header.Set(auth.HeaderAgentKey, tok)
	p, err := auth.Authenticate(r, "the-admin-token", ring)
	fmt.Println(p, err)
	fmt.Println(p.AllowInfraEnv("another-infra-env"))

	old := ring.ActiveKID()
	ring.Rotate()
	_, err = ring.Verify(tok)
	fmt.Println("after rotate:", err)
	ring.Retire(old)
	_, err = ring.Verify(tok)
	fmt.Println("after retire:", err)

	saved, _ := ring.Marshal() // a secret: keep it in the replicated state
	again, _ := auth.UnmarshalKeyRing(saved)
	fmt.Println(again.ActiveKID() == ring.ActiveKID())
	// Output:
	// agent of infra-env 0b6f1f6e-0f6c-4d38-9d5f-7a1c3c1b2e4d <nil>
	// forbidden: agent of infra-env 0b6f1f6e-0f6c-4d38-9d5f-7a1c3c1b2e4d may not access infra-env another-infra-env
	// after rotate: <nil>
	// after retire: token signed by an unknown or retired key
	// true
}

// Tokens verify while the ring rotates and retires keys (run with -race).
func TestKeyRingConcurrent(t *testing.T) {
	ring := auth.NewKeyRing()
	if _, err := ring.Generate(); err != nil {
		t.Fatal(err)
	}
	tok, err := ring.Sign(auth.Claims{InfraEnvID: "ie", ExpiresAt: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	first := ring.ActiveKID()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if _, err := ring.Verify(tok); err != nil {
					errs <- err
					return
				}
				if _, err := ring.Sign(auth.Claims{InfraEnvID: "ie"}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	for range 5 {
		prev := ring.ActiveKID()
		if _, err := ring.Rotate(); err != nil {
			t.Fatal(err)
		}
		if prev != first {
			if err := ring.Retire(prev); err != nil {
				t.Fatal(err)
			}
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("verify during rotation: %v", err)
	}
}
