package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/testbed/netns"
)

// remoteConfig serves on :8080 in the server namespace (advertised as
// 10.99.0.1), with the infra-env "rack" as the default.
func remoteConfig(adminRemote bool) string {
	return fmt.Sprintf(`[server]
advertise = "10.99.0.1"
http_listen = ":8080"
data_dir = "state"

[tftp]
enabled = false

[[profile]]
name = "discovery"
kernel = "vmlinuz"
initrd = "initrd.img"

[engine]
default_infra_env = "rack"
default_profile = "discovery"

[api]
admin_remote = %v
`, adminRemote)
}

// curlIn runs curl in ns and returns the HTTP status and the body; out,
// when given, receives the body instead.
func curlIn(t *testing.T, ns *netns.NS, url string, header string, out ...string) (int, string) {
	t.Helper()
	// -k: the API certificate is the appliance's self-signed one
	args := []string{"-sS", "-k", "-w", "\n%{http_code}", "--max-time", "20"}
	if header != "" {
		args = append(args, "-H", header)
	}
	if len(out) > 0 {
		args = append(args, "-o", out[0])
	}
	got, err := ns.Run(context.Background(), "curl", append(args, url)...)
	if err != nil {
		t.Fatalf("curl %s in %s: %v\n%s", url, ns.Name, err, got)
	}
	i := strings.LastIndexByte(got, '\n')
	var code int
	if _, err := fmt.Sscan(got[i+1:], &code); err != nil {
		t.Fatalf("curl %s: no status in %q", url, got)
	}
	return code, got[:i]
}

// TestAdminTokenLoopbackOnly runs the daemon in a namespace with a bridge;
// a second namespace is a host on that network. The admin token works
// from the server's loopback and is refused (403, with the reason) from
// the host's network, while the boot artifacts and the agent routes (an
// infra-env token) stay reachable from there. With admin_remote = true
// (a restart) the admin token works from the network too.
func TestAdminTokenLoopbackOnly(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	tb := newDHCPTestbed(t)
	ctx := context.Background()
	if err := tb.server.AddVethToBridge(ctx, "br0", tb.client, "eth0", "10.99.0.50/24", "52:54:00:00:00:42"); err != nil {
		t.Fatal(err)
	}
	d := newTestDaemon(t, "10.99.0.1:8080", "")
	d.writeConfig(remoteConfig(false))
	prefix := []string{"ip", "netns", "exec", tb.server.Name}
	d.start(prefix)
	d.waitNote("READY=1")
	token := d.adminToken()
	const local, remote = "http://127.0.0.1:8080" + apiBase, "http://10.99.0.1:8080" + apiBase

	if code, body := curlIn(t, tb.server, local+"/clusters", "Authorization: Bearer "+token); code != http.StatusOK {
		t.Fatalf("admin from loopback: %d %s", code, body)
	}
	code, body := curlIn(t, tb.client, remote+"/clusters", "Authorization: Bearer "+token)
	if code != http.StatusForbidden || !strings.Contains(body, "admin_remote") {
		t.Errorf("admin from the network: %d %s; want 403 naming admin_remote", code, body)
	}
	if code, body := curlIn(t, tb.client, remote+"/clusters?api_key="+token, ""); code != http.StatusForbidden {
		t.Errorf("admin token as api_key from the network: %d %s", code, body)
	}

	code, body = curlIn(t, tb.server, local+"/infra-envs", "Authorization: Bearer "+token)
	if code != http.StatusOK {
		t.Fatalf("list infra-envs: %d %s", code, body)
	}
	id := createInfraEnvIn(t, tb.server, local, token)

	// A stranger on the network boots the default infra-env; its agent
	// token works from there.
	initrd := filepath.Join(t.TempDir(), "initrd")
	if code, body := curlIn(t, tb.client, "http://10.99.0.1:8080/boot/52-54-00-00-00-42/initrd", "", initrd); code != http.StatusOK {
		t.Fatalf("initrd from the network: %d %s", code, body)
	}
	served, err := os.ReadFile(initrd)
	if err != nil {
		t.Fatal(err)
	}
	ac, ok := agentConfOf(t, ignitionFiles(t, served, "initrd"))
	if !ok || ac.InfraEnvID != id || ac.ServiceURL != "http://10.99.0.1:8080" {
		t.Fatalf("agent.conf: %+v %v", ac, ok)
	}
	if code, body := curlIn(t, tb.client, remote+"/infra-envs/"+id, "X-Secret-Key: "+ac.Token); code != http.StatusOK {
		t.Errorf("agent route from the network: %d %s", code, body)
	}
	d.stop()

	d.writeConfig(remoteConfig(true))
	d.start(prefix)
	d.waitNote("READY=1")
	if code, body := curlIn(t, tb.client, remote+"/infra-envs/"+id, "Authorization: Bearer "+token); code != http.StatusOK {
		t.Errorf("admin from the network with admin_remote = true: %d %s", code, body)
	}
	// The Kubernetes-compatible API is HTTPS only from the network (the
	// same port), plain HTTP on loopback.
	if code, body := curlIn(t, tb.client, "http://10.99.0.1:8080/api/v1/namespaces", "Authorization: Bearer "+token); code != http.StatusForbidden ||
		!strings.Contains(body, `"reason":"Forbidden"`) || !strings.Contains(body, "HTTPS only") {
		t.Errorf("kube API over plain HTTP from the network: %d %s; want a 403 Status saying HTTPS only", code, body)
	}
	if code, body := curlIn(t, tb.client, "https://10.99.0.1:8080/api/v1/namespaces", "Authorization: Bearer "+token); code != http.StatusOK {
		t.Errorf("kube API over HTTPS from the network: %d %s", code, body)
	}
	if code, body := curlIn(t, tb.server, "http://127.0.0.1:8080/api/v1/namespaces", "Authorization: Bearer "+token); code != http.StatusOK {
		t.Errorf("kube API over plain HTTP on loopback: %d %s", code, body)
	}
	d.stop()
}

// createInfraEnvIn creates the infra-env "rack" with curl in ns.
func createInfraEnvIn(t *testing.T, ns *netns.NS, base, token string) string {
	t.Helper()
	out, err := ns.Run(context.Background(), "curl", "-sS", "--fail-with-body", "--max-time", "20",
		"-H", "Authorization: Bearer "+token, "-H", "Content-Type: application/json",
		"-d", `{"name":"rack","pull_secret":"{\"auths\":{}}"}`, base+"/infra-envs")
	if err != nil {
		t.Fatalf("create infra-env: %v\n%s", err, out)
	}
	_, rest, ok := strings.Cut(out, `"id":"`)
	id, _, _ := strings.Cut(rest, `"`)
	if !ok || id == "" {
		t.Fatalf("create infra-env: no id in %s", out)
	}
	return id
}
