package bmhs

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/enginetest"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/models"
)

func newService(t *testing.T, sealer *engine.Sealer) (*Service, *enginetest.Store) {
	t.Helper()
	st := enginetest.NewStore()
	hs, err := hosts.New(hosts.Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Store: st, Hosts: hs, Sealer: sealer})
	if err != nil {
		t.Fatal(err)
	}
	return s, st
}

func bmh() engine.BareMetalHost {
	return engine.BareMetalHost{Name: "worker-0", BootMACAddress: "52:54:00:aa:00:01",
		BMC: engine.BMC{Address: "redfish-virtualmedia://10.0.0.9/redfish/v1/Systems/1", CredentialsName: "worker-0-bmc-secret"}}
}

// BMC credentials are refused, writing nothing, without a sealer; with
// one they are stored sealed (the password never in the clear), and
// deleting the BMH deletes its unused credentials secret.
func TestCreateDeleteWithCredentials(t *testing.T) {
	creds := &models.BMCCredentials{Username: "admin", Password: "s3cret-pass"}
	s, st := newService(t, nil)
	if _, err := s.Create(context.Background(), bmh(), creds, nil); !errors.Is(err, ErrNoSealer) || st.Entries() != 0 {
		t.Fatalf("without a sealer: %v, %d entries", err, st.Entries())
	}
	sealer, err := engine.NewSealer(make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	s, st = newService(t, sealer)
	ctx := context.Background()
	if _, err := s.Create(ctx, bmh(), creds, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(ctx, bmh(), nil, nil); !errors.Is(err, engine.ErrConflict) {
		t.Errorf("a second worker-0: %v", err)
	}
	var (
		sec engine.Secret
		ok  bool
	)
	st.Read(func(m *engine.Model) { sec, ok = m.Secret("worker-0-bmc-secret") })
	if !ok || sec.Type != engine.BMCSecretType || bytes.Contains(sec.Data[engine.BMCSecretPassword], []byte("s3cret-pass")) {
		t.Fatalf("credentials secret %v %q (password in the clear?)", ok, sec.Type)
	}
	if err := s.Delete(ctx, "worker-0"); err != nil {
		t.Fatal(err)
	}
	st.Read(func(m *engine.Model) { _, ok = m.Secret("worker-0-bmc-secret") })
	if ok {
		t.Error("the deleted BMH's credentials secret is left")
	}
}
