package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/cluster/rackca"
)

// clusterFile writes a rack CA and rb1's files under dir and returns a
// configuration with [cluster] body extra.
func clusterFile(t *testing.T, dir, extra string) string {
	t.Helper()
	ca, err := rackca.Init(filepath.Join(dir, "rack"), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ca.WriteNode(filepath.Join(dir, "rack"), "rb1", time.Now()); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, "rackboot.toml")
	text := `[server]
advertise = "10.99.0.1"
[tftp]
enabled = false
[cluster]
ca = "rack/rb1/ca.crt"
cert = "rack/rb1/node.crt"
key = "rack/rb1/node.key"
` + extra
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

func TestClusterGood(t *testing.T) {
	dir := t.TempDir()
	name := clusterFile(t, dir, `node_id = "rb1"
bind = "10.99.0.2:8300"
bootstrap = ["rb1@10.99.0.2:8300", "rb2@10.99.0.3:8300", "rb3@10.99.0.4:8300"]
`)
	cfg, err := Load(name)
	if err != nil {
		t.Fatal(err)
	}
	cl := cfg.Cluster
	if cl == nil || cl.NodeID != "rb1" || cl.Advertise != "10.99.0.2:8300" || len(cl.Bootstrap) != 3 || cl.Join != "" {
		t.Fatalf("cluster = %+v", cl)
	}
	if cl.Identity == nil || cl.Identity.NodeID != "rb1" || cl.Key != filepath.Join(dir, "rack/rb1/node.key") {
		t.Errorf("identity %+v, key %s", cl.Identity, cl.Key)
	}
	if cl.Bootstrap[2] != (ClusterPeer{ID: "rb3", Addr: "10.99.0.4:8300"}) {
		t.Errorf("bootstrap %v", cl.Bootstrap)
	}

	name = clusterFile(t, t.TempDir(), `node_id = "rb1"
advertise = "10.99.0.2:8300"
join = "10.99.0.3:8300"
`)
	if cfg, err = Load(name); err != nil {
		t.Fatal(err)
	}
	if cl := cfg.Cluster; cl.Bind != ":8300" || cl.Advertise != "10.99.0.2:8300" || cl.Join != "10.99.0.3:8300" {
		t.Errorf("cluster = %+v", cl)
	}
}

func TestNoCluster(t *testing.T) {
	cfg, err := Load("testdata/good/rackboot.toml")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Cluster != nil {
		t.Errorf("cluster without [cluster]: %+v", cfg.Cluster)
	}
}

// The certificate must name node_id, and the bootstrap list must hold
// this appliance.
func TestClusterIdentityMismatch(t *testing.T) {
	name := clusterFile(t, t.TempDir(), `node_id = "rb2"
bind = "10.99.0.2:8300"
bootstrap = ["rb1@10.99.0.2:8300", "rb3@10.99.0.4:8300"]
`)
	_, err := Load(name)
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{
		`cluster.cert names node "rb1", not cluster.node_id "rb2"`,
		`cluster.bootstrap does not list this appliance as "rb2@10.99.0.2:8300"`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

// secrets_key names the rack's sealing key; a missing file is an error
// with its position, like any other missing file.
func TestClusterSecretsKey(t *testing.T) {
	dir := t.TempDir()
	name := clusterFile(t, dir, `node_id = "rb1"
bind = "10.99.0.2:8300"
bootstrap = ["rb1@10.99.0.2:8300"]
secrets_key = "rack/rb1/secrets.key"
`)
	cfg, err := Load(name)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cfg.Cluster.SecretsKey, filepath.Join(dir, "rack/rb1/secrets.key"); got != want {
		t.Fatalf("secrets key %q, want %q", got, want)
	}
	name = clusterFile(t, t.TempDir(), `node_id = "rb1"
bind = "10.99.0.2:8300"
bootstrap = ["rb1@10.99.0.2:8300"]
secrets_key = "rack/nowhere/secrets.key"
`)
	_, err = Load(name)
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `rackboot.toml:12:15: cluster.secrets_key "rack/nowhere/secrets.key" does not exist`) {
		t.Fatalf("err = %v", err)
	}
}
