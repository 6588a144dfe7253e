package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/testbed/coreosimage"
	"github.com/rackboot/rackboot/testbed/ha"
	"github.com/rackboot/rackboot/testbed/image"
)

// haRackConfig is the [dhcp] table (with a reservation per VM) and the
// discovery settings of discoveryConfig (the CoreOS-shaped image set of
// m), for a testbed/ha rack (whose nodes need haAgentDir).
func haRackConfig(m coreosimage.Mirror, hosts []discoHost) (dhcp, extra string) {
	var b strings.Builder
	fmt.Fprintf(&b, "[dhcp]\nmode = \"full\"\ninterfaces = [\"eth0\"]\nsubnet = %q\nrange = [%q, %q]\nrouter = %q\ndns = [%q]\nlease_time = \"1h\"\n",
		ha.Subnet, ha.RangeStart, ha.RangeEnd, ha.ServiceAddr, ha.ServiceAddr)
	for _, h := range hosts {
		fmt.Fprintf(&b, "\n[[dhcp.reservation]]\nmac = %q\nip = %q\nhostname = %q\n", h.mac, h.ip, h.name)
	}
	set := coreosimage.ImageSet{Name: discoveryImageSet, Mirror: m, Extra: thresholdsTOML(testbedThresholds(), false)}
	extra = fmt.Sprintf(`[engine]
default_infra_env = %q
monitor_interval = "5s"
%s`, discoveryInfraEnv, set.TOML())
	return b.String(), extra
}

// haAgentDir is the agent_dir of the rack's nodes: this repository's
// bin/agent (make build).
func haAgentDir(t *testing.T) string {
	t.Helper()
	root, err := image.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return coreosimage.AgentDir(root)
}

// TestHAKillLeaderWhileRegistering: three appliances (testbed/ha) on the
// bridge of a SeaBIOS VM, which network-boots the discovery image through
// the leader (DHCP, iPXE script and kernel/initrd at the service address).
// As its agent starts, the leader is killed with SIGKILL: a new leader
// takes the service address, the agent (which never exits) registers
// through it with its inventory, and keeps checking in.
func TestHAKillLeaderWhileRegistering(t *testing.T) {
	requireE2E(t, "gcc")
	ctx := t.Context()
	m := liveMirror(t, ctx)
	host := discoHosts[0]
	dhcp, extra := haRackConfig(m, []discoHost{host})
	// RACKBOOTD names another rackbootd build than bin/rackbootd.
	r, err := ha.New(ctx, ha.Options{Dir: t.TempDir(), Logf: t.Logf, DHCP: dhcp, Extra: extra, AgentDir: haAgentDir(t),
		Binary: os.Getenv("RACKBOOTD")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			for _, n := range r.Nodes {
				t.Logf("--- %s log (last 40 lines)\n%s", n.Name, n.Tail(40))
			}
		}
		r.Close()
	})
	if err := r.Start(ctx); err != nil {
		t.Fatal(err)
	}
	leader, err := r.Leader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.WaitVIP(ctx); err != nil {
		t.Fatal(err)
	}
	c := r.API(10 * time.Second)
	ie, err := c.CreateInfraEnv(ctx, ha.ServiceURL(), discoveryInfraEnv, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Bed.AddTap(ctx, host.tap, ha.Bridge); err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	vm := startDiscoVM(t, ctx, r.Bed, host)
	waitAgent(t, ctx, host, vm, started)
	killed := killLeader(t, ctx, r, leader, "as the agent started")

	var h models.APIHost
	deadline := time.Now().Add(5 * time.Minute)
	for {
		var hs []models.APIHost
		code, _, err := c.Do(ctx, ha.ServiceURL(), http.MethodGet, "/infra-envs/"+ie.ID+"/hosts", nil, &hs)
		if err == nil && code == http.StatusOK {
			if got, inv, ok := hostByMAC(hs, host.mac); ok && inv != nil {
				h = got
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not register with its inventory through the new leader within 5 minutes", host.name)
		}
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-time.After(2 * time.Second):
		}
	}
	t.Logf("%s registered with its inventory (status %s) %s after the kill", host.name, h.Status, time.Since(killed).Round(time.Second))
	console := vm.Console()
	if n := strings.Count(console, image.MarkerAgentStart); n != 1 || strings.Contains(console, image.MarkerAgentExit) {
		t.Errorf("the agent started %d times or exited: it should ride out the failover", n)
	}
}

// killLeader kills the leader (SIGKILL) and waits until another appliance
// holds the service address; it logs how long that took and returns the
// time of the kill.
func killLeader(t *testing.T, ctx context.Context, r *ha.Rack, leader *ha.Node, when string) time.Time {
	t.Helper()
	if err := leader.Kill(); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	next, err := r.WaitVIP(ctx, leader)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("killed the leader %s %s; %s holds the service address after %s",
		leader.Name, when, next.Name, time.Since(killed).Round(time.Millisecond))
	return killed
}
