package downloads

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	v35 "github.com/coreos/ignition/v2/config/v3_5"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/enginetest"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/infraenvs"
	"github.com/rackboot/rackboot/engine/models"
)

const (
	serviceURL = "http://10.0.0.1:8090"
	bootURL    = "http://10.0.0.1:8080"
)

// bed is a store with a key ring and a clock stopped at its start (the
// key ring checks expiry on the real clock).
type bed struct {
	t    *testing.T
	st   *enginetest.Store
	keys *auth.KeyRing
	now  time.Time
	hs   *hosts.Service
}

func newBed(t *testing.T) *bed {
	t.Helper()
	keys := auth.NewKeyRing()
	if _, err := keys.Generate(); err != nil {
		t.Fatal(err)
	}
	b := &bed{t: t, st: enginetest.NewStore(), keys: keys, now: time.Now().UTC().Truncate(time.Second)}
	hs, err := hosts.New(hosts.Options{Store: b.st, Now: b.clock})
	if err != nil {
		t.Fatal(err)
	}
	b.hs = hs
	return b
}

func (b *bed) clock() time.Time { return b.now }

// service is a Service over the bed with o's ISOs and PXE.
func (b *bed) service(o Options) *Service {
	b.t.Helper()
	o.Store, o.Keys, o.ServiceURL, o.BootURL, o.Hosts, o.Now = b.st, b.keys, serviceURL, bootURL, b.hs, b.clock
	s, err := New(o)
	if err != nil {
		b.t.Fatal(err)
	}
	return s
}

func (b *bed) apply(cmd engine.Command) {
	b.t.Helper()
	if _, err := b.st.Apply(context.Background(), cmd); err != nil {
		b.t.Fatal(err)
	}
}

// infraEnv registers an infra-env as the REST API does and returns its id.
func (b *bed) infraEnv(name string) string {
	b.t.Helper()
	ies, err := infraenvs.New(infraenvs.Options{Store: b.st, Hosts: b.hs, ServiceURL: serviceURL})
	if err != nil {
		b.t.Fatal(err)
	}
	ps := `{"auths":{}}`
	id, err := ies.Register(context.Background(), models.InfraEnvCreateParams{Name: &name, PullSecret: &ps})
	if err != nil {
		b.t.Fatal(err)
	}
	return id
}

// inventory is an inventory with one NIC of mac and disk vda.
func inventory(mac string) []byte {
	return []byte(`{"hostname":"node-1","interfaces":[{"name":"eth0","mac_address":"` + mac + `"}],` +
		`"disks":[{"id":"/dev/disk/by-id/virtio-1","path":"/dev/vda","size_bytes":128000000000}]}`)
}

// ignitionFile is the contents of path in Ignition document ign.
func ignitionFile(t *testing.T, ign []byte, path string) string {
	t.Helper()
	cfg, rpt, err := v35.Parse(ign)
	if err != nil {
		t.Fatalf("not valid Ignition: %v\n%s", err, rpt)
	}
	for _, f := range cfg.Storage.Files {
		if f.Path != path || f.Contents.Source == nil {
			continue
		}
		data, err := url.PathUnescape(strings.TrimPrefix(*f.Contents.Source, "data:,"))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	t.Fatalf("no %s in the Ignition", path)
	return ""
}
