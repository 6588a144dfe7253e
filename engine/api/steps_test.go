package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/cmd/rackboot-agent/steps"
	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/engine/validation"
	"github.com/rackboot/rackboot/testbed/netns"
)

// errNoDNS: the test resolver has no server (no DNS traffic leaves).
var errNoDNS = errors.New("test: no DNS server")

// stepAgent is one host driven through the API by the agent's own step
// executors (cmd/rackboot-agent/steps), as rackboot-agent runs them.
type stepAgent struct {
	t      *testing.T
	e      *env
	ieID   string
	id     string
	agent  cred
	inv    models.Inventory
	deps   steps.Deps
	offset time.Duration // the host clock's error, sent as ?timestamp=
	// run runs an executor where the host lives (its network namespace);
	// nil: here.
	run func(fn func() error) error
}

func newStepAgent(t *testing.T, e *env, ieID, id string, inv models.Inventory) *stepAgent {
	a := &stepAgent{t: t, e: e, ieID: ieID, id: id, agent: cred{agent: e.agentConfig(ieID).Token}, inv: inv}
	a.deps = steps.Deps{
		Inventory: func(context.Context) (*models.Inventory, error) { c := a.inv; return &c, nil },
		Resolver: &net.Resolver{PreferGo: true, Dial: func(context.Context, string, string) (net.Conn, error) {
			return nil, errNoDNS
		}},
		Appliance:  func() (string, time.Duration, bool) { return "rackbootd", a.offset, true },
		PingRounds: 2, PingWait: 300 * time.Millisecond,
	}
	e.must(a.agent, 201, "POST", "/infra-envs/"+ieID+"/hosts", models.HostCreateParams{HostID: id})
	return a
}

func (a *stepAgent) path() string { return "/infra-envs/" + a.ieID + "/hosts/" + a.id }

// poll asks for instructions once, runs them all and posts the replies;
// it returns the step types it ran.
func (a *stepAgent) poll() []models.StepType {
	a.t.Helper()
	var got models.Steps
	ts := time.Now().Add(a.offset).Unix()
	a.e.must(a.agent, 200, "GET", fmt.Sprintf("%s/instructions?timestamp=%d", a.path(), ts), nil).decode(a.t, &got)
	r := steps.NewRunner(a.deps)
	var ran []models.StepType
	for _, st := range got.Instructions {
		reply := models.StepReply{StepID: st.StepID, StepType: st.StepType}
		run := a.run
		if run == nil {
			run = func(fn func() error) error { return fn() }
		}
		err := run(func() error {
			var err error
			reply.Output, err = a.exec(r, st)
			return err
		})
		if err != nil {
			a.t.Fatalf("host %s: step %s: %v", a.id, st.StepType, err)
		}
		a.e.must(a.agent, 204, "POST", a.path()+"/instructions", reply)
		ran = append(ran, st.StepType)
	}
	return ran
}

// exec runs st with the agent's executor; installation-disk-speed-check
// measures a file of the test's instead of the inventory's disk (which
// may name a disk of the test machine) and reports it under the disk's
// path.
func (a *stepAgent) exec(r *steps.Runner, st *models.Step) (string, error) {
	if r == nil {
		r = steps.NewRunner(a.deps)
	}
	if st.StepType != models.StepTypeInstallationDiskSpeedCheck {
		return r.Executors[st.StepType](context.Background(), st.Args)
	}
	var req models.DiskSpeedCheckRequest
	if err := json.Unmarshal([]byte(st.Args[0]), &req); err != nil {
		return "", err
	}
	disk := filepath.Join(a.t.TempDir(), "disk.img")
	if err := os.WriteFile(disk, nil, 0o600); err != nil {
		return "", err
	}
	arg, _ := json.Marshal(models.DiskSpeedCheckRequest{Path: disk, ThresholdMs: 60_000})
	d := a.deps
	d.DiskSpeedBytes = 10 * steps.DiskSpeedBlock
	out, err := steps.NewRunner(d).Executors[st.StepType](context.Background(), []string{string(arg)})
	return strings.Replace(out, disk, req.Path, 1), err
}

func (a *stepAgent) host() models.APIHost {
	a.t.Helper()
	var h models.APIHost
	a.e.must(adminCred(), 200, "GET", a.path(), nil).decode(a.t, &h)
	return h
}

// validationOf returns the status and message of validation id of h.
func validationOf(t *testing.T, h models.APIHost, id validation.ID) (validation.Status, string) {
	t.Helper()
	info, err := validation.ParseInfo(h.ValidationsInfo)
	if err != nil {
		t.Fatalf("validations_info %q: %v", h.ValidationsInfo, err)
	}
	for _, rs := range info {
		for _, r := range rs {
			if r.ID == id {
				return r.Status, r.Message
			}
		}
	}
	return "", ""
}

// goldenInventory is the QEMU VM's inventory, with hostname and one NIC.
func goldenInventory(t *testing.T, hostname, mac, cidr string) models.Inventory {
	t.Helper()
	var inv models.Inventory
	if err := json.Unmarshal([]byte(inventory(t)), &inv); err != nil {
		t.Fatal(err)
	}
	inv.Hostname = hostname
	if mac != "" {
		inv.Interfaces = []*models.Interface{{Name: "eth0", MacAddress: mac, IPV4Addresses: []string{cidr},
			IPV6Addresses: []string{}, Mtu: 1500, HasCarrier: true}}
		inv.Routes = []*models.Route{{Destination: "0.0.0.0", Family: 2, Gateway: "10.77.0.1", Interface: "eth0"}}
	}
	return inv
}

// A single-node cluster's host runs the periodic steps with the agent's
// executors and becomes known; its host clock decides, its NTP sources
// do not: upstream blocks installation on a skewed clock
// (time-synced-between-host-and-service) and only reports ntp-synced.
func TestStepsSingleNodeKnownAndClockSkew(t *testing.T) {
	e := newMemEnv(t)
	var c models.Cluster
	e.must(adminCred(), 201, "POST", "/clusters", map[string]any{"name": "sno", "openshift_version": "4.17",
		"pull_secret": testPullSecret, "base_dns_domain": "example.com", "high_availability_mode": "None",
		"machine_networks": []map[string]string{{"cidr": "10.55.0.0/16"}}}).decode(t, &c)
	var ie models.InfraEnv
	e.must(adminCred(), 201, "POST", "/infra-envs", map[string]any{"name": "sno", "pull_secret": testPullSecret,
		"cluster_id": c.ID}).decode(t, &ie)
	a := newStepAgent(t, e, ie.ID, testHostID, goldenInventory(t, "sno-1", "", ""))
	a.offset = -2 * time.Hour // the host's clock is two hours late

	ran := a.poll()
	want := []models.StepType{models.StepTypeInventory, models.StepTypeConnectivityCheck,
		models.StepTypeNtpSynchronizer, models.StepTypeDomainResolution}
	if !slices.Equal(ran, want) {
		t.Fatalf("first poll ran %v, want %v", ran, want)
	}
	h := a.host()
	if h.Status != models.HostStatusInsufficient || !strings.Contains(h.StatusInfo, "Host clock is not synchronized") {
		t.Errorf("skewed host is %q (%s), want insufficient for its clock", h.Status, h.StatusInfo)
	}
	if st, msg := validationOf(t, h, validation.HostNTPSynced); st != validation.StatusFailure ||
		msg != "Host couldn't synchronize with any NTP server" {
		t.Errorf("ntp-synced %s %q", st, msg)
	}
	var ntp models.NtpSynchronizationResponse
	if err := json.Unmarshal([]byte(h.NtpSources), &ntp); err != nil || len(ntp.NtpSources) != 1 ||
		ntp.NtpSources[0].SourceName != "rackbootd" || ntp.NtpSources[0].SourceState != models.SourceStateError {
		t.Errorf("ntp_sources %s: %v", h.NtpSources, err)
	}
	if h.Timestamp != time.Now().Add(a.offset).Unix() && h.Timestamp != time.Now().Add(a.offset).Unix()-1 {
		t.Errorf("timestamp %d, want the host's clock", h.Timestamp)
	}
	if !strings.Contains(h.DomainNameResolutions, "validateNoWildcardDNS.sno.example.com") || h.Connectivity != `{"remote_hosts":[]}` {
		t.Errorf("domain_name_resolutions %s connectivity %s", h.DomainNameResolutions, h.Connectivity)
	}

	// The clock is fixed; the NTP step is not due again (same sources,
	// within the interval), so ntp-synced still fails — and does not block.
	a.offset = 0
	if ran := a.poll(); len(ran) != 0 {
		t.Errorf("second poll ran %v, want nothing", ran)
	}
	h = a.host()
	if h.Status != models.HostStatusKnown || h.StatusInfo != validation.StatusInfoKnown {
		t.Errorf("host is %q (%s), want known", h.Status, h.StatusInfo)
	}
	if st, _ := validationOf(t, h, validation.HostNTPSynced); st != validation.StatusFailure {
		t.Errorf("ntp-synced %s, want the stored failure", st)
	}
	if st, _ := validationOf(t, h, validation.HostTimeSyncedWithService); st != validation.StatusSuccess {
		t.Errorf("time-synced %s", st)
	}
}

// Garbage step outputs are refused and change nothing.
func TestStepResultRefused(t *testing.T) {
	e := newMemEnv(t)
	ie := e.createInfraEnv("")
	a := newStepAgent(t, e, ie.ID, testHostID, goldenInventory(t, "h1", "", ""))
	for _, tc := range []struct {
		typ    models.StepType
		output string
	}{
		{models.StepTypeNtpSynchronizer, `{"ntp_sources":`},
		{models.StepTypeConnectivityCheck, `{"remote_hosts":{}}`},
		{models.StepTypeDomainResolution, `[]`},
		{models.StepTypeNtpSynchronizer, ``},
	} {
		r := e.do(a.agent, "POST", a.path()+"/instructions", models.StepReply{StepID: string(tc.typ) + "-1", StepType: tc.typ, Output: tc.output})
		e.wantError(r, 400, string(tc.typ)+" output")
	}
	e.wantError(e.do(a.agent, "GET", a.path()+"/instructions?timestamp=soon", nil), 400, "timestamp")
	if h := a.host(); h.NtpSources != "" || h.Connectivity != "" || h.DomainNameResolutions != "" || h.Timestamp != 0 {
		t.Errorf("refused outputs stored: %+v", h.Host)
	}
}

// Four hosts, each in its own network namespace, run the agent's
// connectivity check against each other with real ICMP and ARP: three
// share a bridge, the fourth is on a bridge of its own. The three form the
// cluster's majority group and become known; the fourth stays
// insufficient, saying it cannot reach the majority.
func TestStepsThreeHostsKnown(t *testing.T) {
	if err := netns.Available(); err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	hub, err := netns.New(ctx, "rbapi-hub")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = hub.Close() })
	for _, br := range []string{"br0", "br1"} {
		if err := hub.AddBridge(ctx, br, ""); err != nil {
			t.Fatal(err)
		}
	}
	e := newMemEnv(t)
	var c models.Cluster
	e.must(adminCred(), 201, "POST", "/clusters", map[string]any{"name": "rack7", "openshift_version": "4.17",
		"pull_secret": testPullSecret, "base_dns_domain": "example.com",
		"machine_networks": []map[string]string{{"cidr": "10.77.0.0/24"}}}).decode(t, &c)
	var ie models.InfraEnv
	e.must(adminCred(), 201, "POST", "/infra-envs", map[string]any{"name": "rack7", "pull_secret": testPullSecret,
		"cluster_id": c.ID}).decode(t, &ie)

	var agents []*stepAgent
	for i := 1; i <= 4; i++ {
		ns, err := netns.New(ctx, fmt.Sprintf("rbapi-h%d", i))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = ns.Close() })
		mac, cidr := fmt.Sprintf("52:54:00:77:00:%02x", i), fmt.Sprintf("10.77.0.%d/24", 10+i)
		br := "br0"
		if i == 4 {
			br = "br1" // cut off from the others
		}
		if err := hub.AddVethToBridge(ctx, br, ns, "eth0", cidr, mac); err != nil {
			t.Fatal(err)
		}
		id := fmt.Sprintf("52540000-7700-0001-0000-00000000000%d", i)
		a := newStepAgent(t, e, ie.ID, id, goldenInventory(t, fmt.Sprintf("node-%d", i), mac, cidr))
		a.run = ns.Do
		agents = append(agents, a)
	}
	for _, a := range agents {
		a.poll() // inventory and the first round of checks
	}
	// Hosts that checked before the others sent inventories have a new
	// list of hosts to reach: their connectivity check is due again, and
	// only that.
	for i, a := range agents {
		ran := a.poll()
		want := []models.StepType{models.StepTypeConnectivityCheck}
		if i == len(agents)-1 {
			want = nil // the last one already saw everyone
		}
		if !slices.Equal(ran, want) {
			t.Errorf("host %d: second poll ran %v, want %v", i+1, ran, want)
		}
	}
	for i, a := range agents[:3] {
		h := a.host()
		if h.Status != models.HostStatusKnown {
			t.Errorf("host %d is %q (%s), want known", i+1, h.Status, h.StatusInfo)
		}
		if st, msg := validationOf(t, h, validation.HostBelongsToMajorityGroup); st != validation.StatusSuccess {
			t.Errorf("host %d: majority group %s %q", i+1, st, msg)
		}
		var rep models.ConnectivityReport
		if err := json.Unmarshal([]byte(h.Connectivity), &rep); err != nil || len(rep.RemoteHosts) != 3 {
			t.Fatalf("host %d connectivity %s: %v", i+1, h.Connectivity, err)
		}
		for _, r := range rep.RemoteHosts {
			reached := len(r.L2Connectivity) == 1 && r.L2Connectivity[0].Successful
			if reached == (r.HostID == agents[3].id) {
				t.Errorf("host %d → %s: L2 %+v", i+1, r.HostID, r.L2Connectivity)
			}
		}
	}
	h := agents[3].host()
	if h.Status != models.HostStatusInsufficient || !strings.Contains(h.StatusInfo, "No connectivity to the majority of hosts in the cluster") {
		t.Errorf("cut-off host is %q (%s), want insufficient for connectivity", h.Status, h.StatusInfo)
	}
}
