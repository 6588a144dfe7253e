package config

import (
	"fmt"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"

	"github.com/rackboot/rackboot/cluster/rackca"
)

// Cluster is [cluster]: this appliance as a member of a rack cluster. Nil
// when the file has no [cluster] (a lone appliance).
type Cluster struct {
	NodeID    string
	Bind      string // host:port of the peer port
	Advertise string // ip:port peers dial
	// Bootstrap lists the founding members (this one included); empty
	// unless given.
	Bootstrap []ClusterPeer
	Join      string // ip:port of a member; "" unless given
	// CA, Cert and Key are the rack CA and this node's certificate and
	// key (absolute paths).
	CA, Cert, Key string
	// Identity is what CA, Cert and Key hold, checked at load.
	Identity *rackca.Identity
	// SecretsKey is the rack's secret-sealing key (secrets_key), shared by
	// every appliance; "" when not given and the default file is absent
	// (then the appliance seals with its own key in data_dir).
	SecretsKey string
	// AdminToken is the rack's shared admin token file (admin_token); ""
	// like SecretsKey.
	AdminToken string
	// VIP is the rack's service address (vip), held by the leader on
	// VIPInterface (vip_interface); not valid when unset (check_vip.go).
	VIP          netip.Prefix
	VIPInterface string
}

// ClusterPeer is one entry of cluster.bootstrap.
type ClusterPeer struct {
	ID   string
	Addr string
}

type fileCluster struct {
	NodeID    string   `toml:"node_id"`
	Bind      string   `toml:"bind"`
	Advertise string   `toml:"advertise"`
	Bootstrap []string `toml:"bootstrap"`
	Join      string   `toml:"join"`
	CA        string   `toml:"ca"`
	Cert      string   `toml:"cert"`
	Key       string   `toml:"key"`
	// SecretsKey is the rack's sealing key file (rackca.SecretsKeyFile).
	SecretsKey string `toml:"secrets_key"`
	AdminToken string `toml:"admin_token"`
	// VIP and VIPInterface: check_vip.go.
	VIP          string `toml:"vip"`
	VIPInterface string `toml:"vip_interface"`
}

// Default paths of the rack identity.
const (
	defaultClusterCA   = "/etc/rackboot/cluster/ca.crt"
	defaultClusterCert = "/etc/rackboot/cluster/node.crt"
	defaultClusterKey  = "/etc/rackboot/cluster/node.key"
	defaultSecretsKey  = "/etc/rackboot/cluster/secrets.key"
	defaultAdminToken  = "/etc/rackboot/cluster/admin-token"
	defaultClusterBind = ":8300"
)

// cluster checks [cluster] when the file has one.
func (c *checker) cluster(f fileCluster) {
	if !c.ix.has("cluster") {
		return
	}
	cl := &Cluster{}
	c.cfg.Cluster = cl
	if f.NodeID == "" {
		c.missing("cluster.node_id", "set this appliance's node id (the one its certificate names)")
	} else if err := rackca.CheckNodeID(f.NodeID); err != nil {
		c.errAt("cluster.node_id", "cluster.node_id %q: letters, digits, '.', '_' and '-', 1 to 64 of them", f.NodeID)
	} else {
		cl.NodeID = f.NodeID
	}
	cl.Bind = c.listen("cluster.bind", c.str("cluster.bind", f.Bind, defaultClusterBind))
	cl.Advertise = c.clusterAdvertise(f.Advertise, cl.Bind)
	c.clusterPeers(f, cl)
	c.clusterIdentity(f, cl)
	c.clusterSecretsKey(f, cl)
	c.clusterVIP(f, cl)
}

// clusterSecretsKey checks the rack's shared files, secrets_key and
// admin_token: each must exist when given; when not given, its default
// path is used if it exists.
func (c *checker) clusterSecretsKey(f fileCluster, cl *Cluster) {
	cl.SecretsKey = c.rackFile("cluster.secrets_key", f.SecretsKey, defaultSecretsKey)
	cl.AdminToken = c.rackFile("cluster.admin_token", f.AdminToken, defaultAdminToken)
}

func (c *checker) rackFile(key, written, def string) string {
	if written == "" {
		if _, err := os.Stat(def); err == nil {
			return def
		}
		return ""
	}
	path := c.path(written)
	c.exists(key, written, path, false)
	return path
}

// clusterAdvertise is the address peers dial: advertise, else bind when
// its host is a specific IP.
func (c *checker) clusterAdvertise(adv, bind string) string {
	if adv != "" {
		if c.peerAddr("cluster.advertise", adv) {
			return adv
		}
		return ""
	}
	host, _, err := net.SplitHostPort(bind)
	if err != nil {
		return ""
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		c.missing("cluster.advertise", fmt.Sprintf("cluster.bind %q has no specific address: set the ip:port the other appliances dial", bind))
		return ""
	}
	return bind
}

// peerAddr checks an ip:port that peers dial.
func (c *checker) peerAddr(path, v string) bool {
	host, port, err := net.SplitHostPort(v)
	n, perr := strconv.Atoi(port)
	ip := net.ParseIP(host)
	if err != nil || perr != nil || n < 1 || n > 65535 || ip == nil || ip.IsUnspecified() {
		c.errAt(path, "%s %q is not ip:port (for example \"10.99.0.2:8300\")", display(path), v)
		return false
	}
	return true
}

// clusterPeers checks bootstrap and join.
func (c *checker) clusterPeers(f fileCluster, cl *Cluster) {
	if len(f.Bootstrap) > 0 && f.Join != "" {
		c.errAt("cluster.join", "cluster.join and cluster.bootstrap exclude each other: bootstrap founds a cluster, join enters an existing one")
	}
	if f.Join != "" && c.peerAddr("cluster.join", f.Join) {
		cl.Join = f.Join
	}
	ids, addrs := map[string]bool{}, map[string]bool{}
	self := false
	for i, p := range f.Bootstrap {
		path := fmt.Sprintf("cluster.bootstrap[%d]", i)
		id, addr, ok := strings.Cut(p, "@")
		if !ok || rackca.CheckNodeID(id) != nil {
			c.errAt(path, "cluster.bootstrap %q is not \"node_id@ip:port\"", p)
			continue
		}
		if !c.peerAddr(path, addr) {
			continue
		}
		if ids[id] || addrs[addr] {
			c.errAt(path, "cluster.bootstrap %q repeats a node id or address", p)
			continue
		}
		ids[id], addrs[addr] = true, true
		self = self || (id == cl.NodeID && addr == cl.Advertise)
		cl.Bootstrap = append(cl.Bootstrap, ClusterPeer{ID: id, Addr: addr})
	}
	if len(f.Bootstrap) > 0 && !self && cl.NodeID != "" && cl.Advertise != "" {
		c.errAt("cluster.bootstrap", "cluster.bootstrap does not list this appliance as %q", cl.NodeID+"@"+cl.Advertise)
	}
}

// clusterIdentity checks that the CA, certificate and key load and that
// the certificate names node_id.
func (c *checker) clusterIdentity(f fileCluster, cl *Cluster) {
	paths := []struct {
		key, written, def string
		out               *string
	}{
		{"cluster.ca", f.CA, defaultClusterCA, &cl.CA},
		{"cluster.cert", f.Cert, defaultClusterCert, &cl.Cert},
		{"cluster.key", f.Key, defaultClusterKey, &cl.Key},
	}
	ok := true
	for _, p := range paths {
		written := c.str(p.key, p.written, p.def)
		*p.out = c.path(written)
		before := len(c.r.errs)
		c.exists(p.key, written, *p.out, false)
		ok = ok && len(c.r.errs) == before
	}
	if !ok {
		return
	}
	id, err := rackca.LoadIdentity(cl.CA, cl.Cert, cl.Key)
	if err != nil {
		c.errAt("cluster.cert", "cluster.cert %q: %s", c.str("cluster.cert", f.Cert, defaultClusterCert), err)
		return
	}
	if cl.NodeID != "" && id.NodeID != cl.NodeID {
		c.errAt("cluster.cert", "cluster.cert names node %q, not cluster.node_id %q", id.NodeID, cl.NodeID)
		return
	}
	cl.Identity = id
}
