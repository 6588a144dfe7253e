package bmhctl_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/bmhctl"
)

// An unreachable BMC: the status says so and the next attempt waits for
// the backoff.
func TestUnreachableBMC(t *testing.T) {
	b := newBed(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	b.addBMH("redfish", bmcPass, func(h *engine.BareMetalHost) {
		h.BMC.Address = "redfish://" + dead + "/redfish/v1/Systems/vm1"
	})
	b.reconcile()
	st := b.bmh().Status
	if st.ErrorType != bmhctl.ErrorUnreachable || st.ErrorCount != 1 || !st.NextRetryAt.Equal(b.clk.Now().Add(testBackoff)) {
		t.Errorf("status = %+v", st)
	}
	rev := b.bmh().Revision
	b.reconcile()
	if b.bmh().Revision != rev {
		t.Error("a pass before the backoff tried again")
	}
}

// A BMC that answers garbage: a clear error in the status, no panic.
func TestGarbageBMC(t *testing.T) {
	for name, body := range map[string]string{
		"not json":       "<html>hello</html>",
		"wrong shapes":   `{"Systems":7,"@odata.id":["x"],"RedfishVersion":{}}`,
		"truncated json": `{"@odata.id":"/redfish/v1/","Systems":{"@odata.id":"/redf`,
		"null":           "null",
	} {
		t.Run(name, func(t *testing.T) {
			b := newBed(t)
			var hits atomic.Int64
			srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(body))
			}))
			t.Cleanup(srv.Close)
			b.addBMH("redfish-virtualmedia", bmcPass, func(h *engine.BareMetalHost) {
				h.BMC.Address = "redfish-virtualmedia://" + strings.TrimPrefix(srv.URL, "https://") + "/redfish/v1/Systems/vm1"
			})
			b.ctl.Reconcile(context.Background())
			st := b.bmh().Status
			if hits.Load() == 0 || st.ErrorCount != 1 || st.ErrorType == "" || st.ErrorMessage == "" ||
				st.ProvisioningState != engine.BMHRegistering {
				t.Errorf("status = %+v after %d requests", st, hits.Load())
			}
			t.Logf("%s: %s", st.ErrorType, st.ErrorMessage)
		})
	}
}

// Configuration errors need no BMC: a missing secret, an unknown
// infra-env, credentials sealed with another key.
func TestConfigErrors(t *testing.T) {
	for name, mod := range map[string]func(b *bed){
		"missing secret": func(b *bed) { b.apply(&engine.DeleteSecret{Name: "vm1-bmc"}) },
		"unknown infra-env": func(b *bed) {
			v := "no-such-rack"
			b.apply(&engine.UpdateBareMetalHost{Name: "vm1", Patch: engine.BMHPatch{Labels: map[string]*string{engine.LabelInfraEnv: &v}}})
		},
		"plaintext secret": func(b *bed) {
			b.apply(&engine.PutSecret{Secret: engine.Secret{Name: "vm1-bmc", Data: map[string][]byte{
				engine.BMCSecretUsername: []byte(bmcUser), engine.BMCSecretPassword: []byte(bmcPass)}}})
		},
	} {
		t.Run(name, func(t *testing.T) {
			b := newBed(t)
			b.addBMH("redfish-virtualmedia", bmcPass, nil)
			mod(b)
			b.reconcile()
			st := b.bmh().Status
			if st.ErrorType != bmhctl.ErrorConfig || st.ErrorCount != 1 || strings.Contains(st.ErrorMessage, bmcPass) {
				t.Errorf("status = %+v", st)
			}
			if got := b.machine.history(); got != "" {
				t.Errorf("the machine was driven: %s", got)
			}
		})
	}
}
