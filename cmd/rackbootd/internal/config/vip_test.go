package config

import (
	"errors"
	"net/netip"
	"os"
	"strings"
	"testing"
)

const vipCluster = `node_id = "rb1"
bind = "10.99.0.2:8300"
bootstrap = ["rb1@10.99.0.2:8300", "rb2@10.99.0.3:8300", "rb3@10.99.0.4:8300"]
`

func TestClusterVIP(t *testing.T) {
	name := clusterFile(t, t.TempDir(), vipCluster+`vip = "10.99.0.1/24"
vip_interface = "br0"
`)
	cfg, err := Load(name)
	if err != nil {
		t.Fatal(err)
	}
	if cl := cfg.Cluster; cl.VIP != netip.MustParsePrefix("10.99.0.1/24") || cl.VIPInterface != "br0" {
		t.Fatalf("vip %v on %q", cl.VIP, cl.VIPInterface)
	}
	name = clusterFile(t, t.TempDir(), vipCluster)
	if cfg, err = Load(name); err != nil {
		t.Fatal(err)
	}
	if cfg.Cluster.VIP.IsValid() {
		t.Fatalf("no vip key gave %v", cfg.Cluster.VIP)
	}
}

func TestClusterVIPBad(t *testing.T) {
	for _, tc := range []struct{ keys, want string }{
		{`vip = "10.99.0.1"` + "\nvip_interface = \"br0\"", `cluster.vip "10.99.0.1" is not an IPv4 address with its prefix length`},
		{`vip = "10.99.0.9/24"` + "\nvip_interface = \"br0\"", `cluster.vip 10.99.0.9 is not server.advertise 10.99.0.1`},
		{`vip = "10.99.0.1/24"`, `cluster.vip_interface is missing`},
		{`vip = "10.99.0.1/24"` + "\nvip_interface = \"br0/x\"", `cluster.vip_interface "br0/x" is not a network interface name`},
		{`vip_interface = "br0"`, `cluster.vip_interface is set but cluster.vip is not`},
	} {
		_, err := Load(clusterFile(t, t.TempDir(), vipCluster+tc.keys+"\n"))
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.keys, err, tc.want)
		}
	}
}

func TestClusterVIPHTTPListen(t *testing.T) {
	name := clusterFile(t, t.TempDir(), vipCluster+`vip = "10.99.0.1/24"
vip_interface = "br0"
`)
	data := strings.Replace(mustRead(t, name), "[tftp]", "http_listen = \"10.99.0.1:8080\"\n[tftp]", 1)
	_, err := Parse(name, []byte(data), "/")
	if err == nil || !strings.Contains(err.Error(), "binds the service address") {
		t.Fatalf("err = %v", err)
	}
}

func mustRead(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
