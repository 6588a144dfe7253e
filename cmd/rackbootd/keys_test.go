package main

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

type signingKeys struct {
	ActiveKID string   `json:"active_kid"`
	KIDs      []string `json:"kids"`
}

// signingKeysOf is the API's GET /signing-keys as the admin.
func (d *testDaemon) signingKeysOf() signingKeys {
	d.t.Helper()
	code, body := d.call("GET", "/signing-keys", "Authorization: Bearer "+d.adminToken(), "")
	var sk signingKeys
	if code != http.StatusOK || json.Unmarshal([]byte(body), &sk) != nil {
		d.t.Fatalf("GET signing-keys: %d %s", code, body)
	}
	return sk
}

// bootToken is the agent token in the config.ign of a stranger's initrd,
// signed by the boot selector.
func (d *testDaemon) bootToken() string {
	d.t.Helper()
	ac, ok := agentConfOf(d.t, ignitionFiles(d.t, []byte(d.get("/boot/52-54-00-00-00-99/initrd")), "initrd"))
	if !ok || ac.Token == "" {
		d.t.Fatalf("the stranger's initrd has no agent token: %+v", ac)
	}
	return ac.Token
}

// jwtKID reads the kid from a JWT's header.
func jwtKID(t *testing.T, tok string) string {
	t.Helper()
	head, _, _ := strings.Cut(tok, ".")
	raw, err := base64.RawURLEncoding.DecodeString(head)
	var h struct{ KID string }
	if err != nil || json.Unmarshal(raw, &h) != nil {
		t.Fatalf("not a JWT header: %.20q", head)
	}
	return h.KID
}

// TestSigningKeyRotation: a rotation through the API is seen by the boot
// selector of the same daemon at once (initrds carry tokens of the new
// kid), tokens of the old key keep working until it is retired and are
// refused afterwards, and after kill -9 the daemon holds the same keys.
func TestSigningKeyRotation(t *testing.T) {
	d := startDaemon(t)
	d.waitNote("READY=1")
	id := d.createInfraEnv("rack")
	d.writeConfig(d.engineConfig("default_infra_env = \"rack\"\ndefault_profile = \"discovery\"\n"))
	if status := d.reload(); strings.Contains(status, "reload failed") {
		t.Fatalf("reload: %s", status)
	}
	admin := "Authorization: Bearer " + d.adminToken()
	ie := "/infra-envs/" + id
	before := d.signingKeysOf()
	oldTok := d.bootToken()
	if jwtKID(t, oldTok) != before.ActiveKID {
		t.Fatalf("boot token kid %s, active %s", jwtKID(t, oldTok), before.ActiveKID)
	}
	if code, body := d.call("POST", "/signing-keys/actions/rotate", "X-Secret-Key: "+oldTok, ""); code != http.StatusForbidden {
		t.Errorf("agent rotates: %d %s", code, body)
	}
	code, body := d.call("POST", "/signing-keys/actions/rotate", admin, "")
	var rotated signingKeys
	if code != http.StatusOK || json.Unmarshal([]byte(body), &rotated) != nil || rotated.ActiveKID == before.ActiveKID {
		t.Fatalf("rotate: %d %s", code, body)
	}
	newTok := d.bootToken()
	if jwtKID(t, newTok) != rotated.ActiveKID {
		t.Errorf("boot token after rotation signed by %s, want %s", jwtKID(t, newTok), rotated.ActiveKID)
	}
	if code, body := d.call("GET", ie, "X-Secret-Key: "+oldTok, ""); code != http.StatusOK {
		t.Errorf("token of the previous key before retiring it: %d %s", code, body)
	}
	if code, body := d.call("DELETE", "/signing-keys/"+before.ActiveKID, admin, ""); code != http.StatusNoContent {
		t.Fatalf("retire: %d %s", code, body)
	}
	if code, body := d.call("GET", ie, "X-Secret-Key: "+oldTok, ""); code != http.StatusUnauthorized {
		t.Errorf("token of the retired key: %d %s", code, body)
	}
	if code, body := d.call("GET", ie, "X-Secret-Key: "+newTok, ""); code != http.StatusOK {
		t.Errorf("token of the new key: %d %s", code, body)
	}
	if strings.Contains(d.stderr.String(), "PRIVATE KEY") {
		t.Error("the log holds a PEM block")
	}

	d.signal(syscall.SIGKILL)
	select {
	case err := <-d.exited:
		d.exited <- err
	case <-time.After(waitLimit):
		t.Fatal("rackbootd did not die")
	}
	d.start(nil)
	d.waitNote("READY=1")
	after := d.signingKeysOf()
	if after.ActiveKID != rotated.ActiveKID || !slices.Equal(after.KIDs, []string{rotated.ActiveKID}) {
		t.Errorf("after kill -9: %+v, want only %s", after, rotated.ActiveKID)
	}
	if code, body := d.call("GET", ie, "X-Secret-Key: "+oldTok, ""); code != http.StatusUnauthorized {
		t.Errorf("retired key's token after restart: %d %s", code, body)
	}
	if code, body := d.call("GET", ie, "X-Secret-Key: "+newTok, ""); code != http.StatusOK {
		t.Errorf("new key's token after restart: %d %s", code, body)
	}
	d.stop()
}
