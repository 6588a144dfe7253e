package installbed

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
	"github.com/rackboot/rackboot/engine/models"
)

// The user's secrets: a pull secret and an SSH key, which must never show
// on a console or in rackbootctl's output.
const (
	PullSecret = `{"auths":{"quay.io":{"auth":"dGVzdGJlZDpzZWtyaXQ=","email":"ops@example.com"}}}`
	SSHKey     = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOSXuCdeXfbIz7N1frVxVh7RLkDKcDLxqCJzgFHQE3s2 ops@testbed"
)

// Cluster addresses on the bed's segment.
const (
	BaseDomain     = "rackboot.test"
	MachineNetwork = "10.99.0.0/24"
	APIVIP         = "10.99.0.5"
	IngressVIP     = "10.99.0.6"
)

// CtlCommand is rackbootctl args, run inside the namespace against the
// bed's rackbootd with its admin token; the caller wires its streams.
func (b *Bed) CtlCommand(ctx context.Context, args ...string) *exec.Cmd {
	cmd := b.NS.Command(ctx, b.opts.Rackbootctl, args...)
	cmd.Env = append(os.Environ(), "RACKBOOT_URL="+APIURL, "RACKBOOT_TOKEN="+b.Token)
	return cmd
}

// Ctl runs rackbootctl args and returns its standard output; a non-zero
// exit is an error holding its standard error.
func (b *Bed) Ctl(ctx context.Context, args ...string) (string, error) {
	cmd := b.CtlCommand(ctx, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("rackbootctl %s: %w\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String(), nil
}

// API is rackbootctl's API client for the bed (connections made in the
// namespace).
func (b *Bed) API() (*client.Client, error) {
	return client.New(client.Config{URL: APIURL, Token: b.Token, HTTP: b.HTTPClient(), UserAgent: "installbed"})
}

// CreateCluster makes the cluster (single node with sno, else three
// control-plane nodes with VIPs) installing the bed's image set, and the
// infra-env every MAC boots into, bound to it, with rackbootctl. It returns
// the cluster's ID.
func (b *Bed) CreateCluster(ctx context.Context, name string, sno bool) (string, error) {
	ps, key := filepath.Join(b.Dir, "pull-secret.json"), filepath.Join(b.Dir, "id_ed25519.pub")
	if err := os.WriteFile(ps, []byte(PullSecret), 0o600); err != nil {
		return "", err
	}
	if err := os.WriteFile(key, []byte(SSHKey+"\n"), 0o644); err != nil {
		return "", err
	}
	args := []string{"create", "cluster", "--name", name, "--version", "4.16", "--base-domain", BaseDomain,
		"--image-set", ImageSetName, "--machine-network", MachineNetwork, "--cluster-network", "10.128.0.0/14",
		"--service-network", "172.30.0.0/16", "--pull-secret-file", ps, "--ssh-key-file", key}
	if sno {
		args = append(args, "--sno")
	} else {
		args = append(args, "--control-plane-count", "3", "--api-vip", APIVIP, "--ingress-vip", IngressVIP)
	}
	out, err := b.Ctl(ctx, args...)
	if err != nil {
		return "", err
	}
	id, ok := strings.CutSuffix(strings.TrimSpace(out), " created")
	id, ok2 := strings.CutPrefix(id, "cluster/")
	if !ok || !ok2 {
		return "", fmt.Errorf("%w: create cluster printed %q", ErrBed, out)
	}
	if _, err := b.Ctl(ctx, "create", "infra-env", "--name", InfraEnvName, "--cluster", id,
		"--cpu-arch", "x86_64", "--pull-secret-file", ps, "--ssh-key-file", key); err != nil {
		return "", err
	}
	return id, nil
}

// HostsOf lists the hosts of cluster id.
func HostsOf(ctx context.Context, c *client.Client, id string) ([]*client.Host, error) {
	all, err := c.ListAllHosts(ctx)
	var out []*client.Host
	for _, h := range all {
		if h.ClusterID == id {
			out = append(out, h)
		}
	}
	return out, err
}

// WaitHosts polls cluster id's hosts every 2 s until ok accepts them, up
// to limit.
func WaitHosts(ctx context.Context, c *client.Client, id string, limit time.Duration, ok func([]*client.Host) bool) ([]*client.Host, error) {
	deadline := time.Now().Add(limit)
	for {
		hs, err := HostsOf(ctx, c, id)
		if err == nil && ok(hs) {
			return hs, nil
		}
		if time.Now().After(deadline) {
			return hs, fmt.Errorf("%w: hosts not as wanted after %s (last error %v): %s", ErrTimeout, limit, err, Summary(hs))
		}
		select {
		case <-ctx.Done():
			return hs, ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}
}

// Summary is "name status [stage]" per host, for error messages.
func Summary(hs []*client.Host) string {
	var s []string
	for _, h := range hs {
		line := Hostname(h) + " " + h.Status
		if h.Progress != nil && h.Progress.CurrentStage != "" {
			line += " [" + string(h.Progress.CurrentStage) + "]"
		}
		if h.Status != models.HostStatusKnown && h.StatusInfo != "" {
			line += " (" + h.StatusInfo + ")"
		}
		s = append(s, line)
	}
	return strings.Join(s, "; ")
}

// WaitCluster polls cluster id every 2 s until its status is one of want,
// up to limit; a cluster in error (not wanted) ends the wait at once.
func WaitCluster(ctx context.Context, c *client.Client, id string, limit time.Duration, want ...string) (*client.Cluster, error) {
	deadline := time.Now().Add(limit)
	for {
		cl, err := c.GetCluster(ctx, id)
		if err == nil {
			for _, w := range want {
				if cl.Status == w {
					return cl, nil
				}
			}
			if cl.Status == "error" {
				return cl, fmt.Errorf("%w: cluster %s is in error: %s; hosts: %s", ErrBed, id, cl.StatusInfo, Summary(cl.Hosts))
			}
		}
		if time.Now().After(deadline) {
			st := ""
			if cl != nil {
				st = cl.Status + " (" + cl.StatusInfo + ")"
			}
			return cl, fmt.Errorf("%w: cluster %s is %s after %s, want %v (last error %v)", ErrTimeout, id, st, limit, want, err)
		}
		select {
		case <-ctx.Done():
			return cl, ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}
}

// BootScript is the iPXE script rackbootd hands the node with MAC mac (what
// its iPXE would fetch now).
func (b *Bed) BootScript(ctx context.Context, mac string) (string, error) {
	url := APIURL + "/boot/" + strings.ReplaceAll(strings.ToLower(mac), ":", "-") + "/script.ipxe"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := b.HTTPClient().Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("%w: GET %s: %s", ErrBed, url, resp.Status)
	}
	return string(body), err
}
