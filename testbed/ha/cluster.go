package ha

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/rackboot/rackboot/engine/auth"
)

// Paths of the cluster API (cluster/clusterapi.Path) and of what
// rackbootctl cluster init writes.
const (
	clusterAPIPath = "/api/rackboot/v1/cluster"
	rackDir        = "rack"
)

// Status is what the cluster API reports (the fields the tests use).
type Status struct {
	Node    string `json:"node"`
	Leader  string `json:"leader"`
	Term    uint64 `json:"term"`
	Commit  uint64 `json:"commit_index"`
	Applied uint64 `json:"applied_index"`
	Members []struct {
		ID      string `json:"id"`
		Address string `json:"address"`
	} `json:"members"`
}

// ctlBinary is rackbootctl next to rackbootd.
func (r *Rack) ctlBinary() string {
	return filepath.Join(filepath.Dir(r.opts.Binary), "rackbootctl")
}

// issue makes n's certificate with rackbootctl: cluster init (the rack CA
// and the founding nodes' files) for the first, cluster issue for later
// ones.
func (r *Rack) issue(ctx context.Context, n *Node) error {
	dir := filepath.Join(r.opts.Dir, rackDir)
	verb := "issue"
	if _, err := os.Stat(filepath.Join(dir, "ca.crt")); err != nil {
		verb = "init"
	}
	out, err := exec.CommandContext(ctx, r.ctlBinary(), "cluster", verb, "--dir", dir, "--node-id", n.Name).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%w: rackbootctl cluster %s: %w\n%s", ErrRack, verb, err, out)
	}
	return nil
}

// seedToken learns the rack's admin token, which rackbootctl cluster init
// wrote and n's [cluster] admin_token names (rackbootd installs it in its
// data directory), so that one token works through any appliance.
// A lone appliance gets a token written into its data directory.
func (r *Rack) seedToken(n *Node) error {
	if r.opts.Lone {
		if r.token == "" {
			tok, err := auth.NewAdminToken()
			if err != nil {
				return err
			}
			r.token = tok
		}
		return os.WriteFile(filepath.Join(n.DataDir(), auth.AdminTokenFile), []byte(r.token+"\n"), 0o600)
	}
	b, err := os.ReadFile(filepath.Join(r.opts.Dir, rackDir, n.Name, auth.AdminTokenFile))
	if err != nil {
		return fmt.Errorf("%w: the rack's admin token: %w", ErrRack, err)
	}
	r.token = strings.TrimSpace(string(b))
	return nil
}

// Token is the rack's admin token.
func (r *Rack) Token() string { return r.token }

// clusterTable is n's [cluster]: the founding nodes bootstrap together;
// nodes added later wait until a member adds them (cluster join).
func (r *Rack) clusterTable(n *Node) string {
	certs := filepath.Join(r.opts.Dir, rackDir, n.Name)
	var boot string
	if n.Index < r.opts.Nodes {
		var peers []string
		for i := range r.opts.Nodes {
			peers = append(peers, fmt.Sprintf("%q", fmt.Sprintf("node%d@%s", i, nodeAddr(i))))
		}
		boot = "bootstrap = [" + strings.Join(peers, ", ") + "]\n"
	}
	return fmt.Sprintf(`[cluster]
node_id = %q
bind = %q
%sca = %q
cert = %q
key = %q
secrets_key = %q
admin_token = %q
vip = "%s/%d"
vip_interface = "eth0"
`, n.Name, n.RaftAddr(), boot, filepath.Join(certs, "ca.crt"), filepath.Join(certs, "node.crt"),
		filepath.Join(certs, "node.key"), filepath.Join(certs, "secrets.key"), filepath.Join(certs, "admin-token"), ServiceAddr, Prefix)
}

// Ctl runs rackbootctl in the client namespace against the service
// address with the admin token.
func (r *Rack) Ctl(ctx context.Context, args ...string) (string, error) {
	return r.CtlVia(ctx, ServiceURL(), args...)
}

// CtlVia runs rackbootctl in the client namespace against base.
func (r *Rack) CtlVia(ctx context.Context, base string, args ...string) (string, error) {
	cmd := r.Client.Command(ctx, r.ctlBinary(), args...)
	cmd.Env = append(os.Environ(), "RACKBOOT_URL="+base, "RACKBOOT_TOKEN="+r.token)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%w: rackbootctl %s: %w\n%s", ErrRack, strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// Status asks n for the cluster's status, from the client namespace.
func (r *Rack) Status(ctx context.Context, n *Node) (Status, error) {
	return r.status(ctx, n, r.HTTP(3*time.Second))
}

// LocalStatus asks n for the cluster's status from inside its own
// namespace, which works while it is cut off.
func (r *Rack) LocalStatus(ctx context.Context, n *Node) (Status, error) {
	return r.status(ctx, n, NSHTTPClient(n.NS, 3*time.Second))
}

func (r *Rack) status(ctx context.Context, n *Node, c *http.Client) (Status, error) {
	var st Status
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, n.URL()+clusterAPIPath, nil)
	if err != nil {
		return st, err
	}
	req.Header.Set("Authorization", "Bearer "+r.token)
	resp, err := c.Do(req)
	if err != nil {
		return st, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return st, fmt.Errorf("%w: %s cluster status: %s: %s", ErrRack, n.Name, resp.Status, b)
	}
	return st, json.Unmarshal(b, &st)
}

// Leader is the node that the running nodes agree leads (all of those
// that answer name it), waiting for one until ctx ends; not excludes
// nodes (a killed leader that another may still name).
func (r *Rack) Leader(ctx context.Context, not ...*Node) (*Node, error) {
	var found *Node
	err := poll(ctx, 50*time.Millisecond, func() (bool, error) {
		found = nil
		for _, n := range r.Nodes {
			if !n.Running() {
				continue
			}
			st, err := r.Status(ctx, n)
			if err != nil || st.Leader == "" {
				continue
			}
			l := r.node(st.Leader)
			if l == nil || contains(not, l) || (found != nil && found != l) {
				return false, nil
			}
			found = l
		}
		return found != nil && found.Running(), nil
	})
	if err != nil {
		return nil, fmt.Errorf("%w: no agreed leader: %w", ErrRack, err)
	}
	return found, nil
}

func (r *Rack) node(name string) *Node {
	for _, n := range r.Nodes {
		if n.Name == name {
			return n
		}
	}
	return nil
}

func contains(ns []*Node, n *Node) bool {
	for _, x := range ns {
		if x == n {
			return true
		}
	}
	return false
}

func nodeAddr(i int) string { return fmt.Sprintf("10.99.0.%d:%d", 11+i, RaftPort) }

// nodes are the nodes of the given names.
func (r *Rack) nodes(names []string) []*Node {
	var out []*Node
	for _, n := range names {
		if x := r.node(n); x != nil {
			out = append(out, x)
		}
	}
	return out
}
