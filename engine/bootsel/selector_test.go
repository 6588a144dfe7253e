package bootsel_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/boot"
	"github.com/rackboot/rackboot/boot/discovery"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/bootsel"
)

func dataURL(t *testing.T, src string) string {
	t.Helper()
	rest, ok := strings.CutPrefix(src, "data:,")
	if !ok {
		t.Fatalf("file source %q is not a plain data URL", src)
	}
	s, err := url.PathUnescape(rest)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// fixedLabels assigns one MAC to an infra-env, as a BareMetalHost label would.
type fixedLabels struct {
	mac string
	ref string
}

func (f fixedLabels) InfraEnvFor(_ *engine.Model, mac net.HardwareAddr) (string, bool) {
	return f.ref, mac.String() == f.mac
}

func TestDecideOrder(t *testing.T) {
	const labelled = "52:54:00:aa:00:42"
	e := newEnv(t, func(o *bootsel.Options) { o.Labels = fixedLabels{labelled, ieA} })
	ctx := context.Background()
	for _, tc := range []struct {
		mac      string
		ie       string
		src      bootsel.Source
		host     string
		hostname string
	}{
		{hostMAC, ieB, bootsel.SourceHost, hostA, ""},
		{"52:54:00:AA:01:01", ieB, bootsel.SourceHost, hostA, ""}, // the host's second NIC
		{resMAC, ieB, bootsel.SourceReservation, "", "worker-7"},
		{nmMAC, ieA, bootsel.SourceNMState, "", ""},
		{labelled, ieA, bootsel.SourceLabel, "", ""},
	} {
		d, err := e.sel.Decide(ctx, mac(t, tc.mac))
		if err != nil {
			t.Fatalf("%s: %v", tc.mac, err)
		}
		if d.InfraEnvID != tc.ie || d.Source != tc.src || d.HostID != tc.host || d.Hostname != tc.hostname || d.Installed {
			t.Errorf("%s: got %+v, want infra-env %s from %s, host %q, hostname %q", tc.mac, d, tc.ie, tc.src, tc.host, tc.hostname)
		}
		if !e.sel.Bootable(ctx, mac(t, tc.mac)) {
			t.Errorf("%s: not bootable", tc.mac)
		}
	}
	_, err := e.sel.Decide(ctx, mac(t, stranger))
	if !errors.Is(err, boot.ErrNoBoot) {
		t.Fatalf("stranger without a default infra-env: %v, want ErrNoBoot", err)
	}
	if _, err := e.sel.Choose(ctx, mac(t, stranger)); !errors.Is(err, boot.ErrNoBoot) {
		t.Fatalf("Choose(stranger): %v, want ErrNoBoot", err)
	}
	if e.sel.Bootable(ctx, mac(t, stranger)) {
		t.Fatal("a stranger is bootable without a default infra-env")
	}
}

func TestDefaultInfraEnvCatchesStrangers(t *testing.T) {
	for _, ref := range []string{ieA, "rack-a"} { // by id and by name
		e := newEnv(t, func(o *bootsel.Options) { o.DefaultInfraEnv = ref })
		d, err := e.sel.Decide(context.Background(), mac(t, stranger))
		if err != nil || d.InfraEnvID != ieA || d.Source != bootsel.SourceDefault {
			t.Fatalf("default %q: %+v, %v", ref, d, err)
		}
		// Assignments still win over the default.
		if d, _ := e.sel.Decide(context.Background(), mac(t, hostMAC)); d.InfraEnvID != ieB {
			t.Fatalf("the default overrode a registered host: %+v", d)
		}
	}
	e := newEnv(t, func(o *bootsel.Options) { o.DefaultInfraEnv = "no-such-infra-env" })
	if _, err := e.sel.Decide(context.Background(), mac(t, stranger)); !errors.Is(err, boot.ErrNoBoot) {
		t.Fatalf("a default naming no infra-env: %v, want ErrNoBoot", err)
	}
}

func TestRegisteredHostWinsOverReservation(t *testing.T) {
	e := newEnv(t, nil)
	e.apply(t, &engine.RegisterHost{Host: engine.Host{ID: "dddddddd-0000-4000-8000-000000000004", InfraEnvID: ieA,
		Status: "discovering", Inventory: inventory(resMAC)}})
	d, err := e.sel.Decide(context.Background(), mac(t, resMAC))
	if err != nil || d.InfraEnvID != ieA || d.Source != bootsel.SourceHost || d.Hostname != "worker-7" {
		t.Fatalf("got %+v, %v; want the host's infra-env A and the reservation's hostname", d, err)
	}
}

func TestNMStateSelectedByTwoInfraEnvsIsNoAssignment(t *testing.T) {
	e := newEnv(t, nil)
	sel := map[string]string{"rack": "a"}
	e.apply(t, &engine.UpdateInfraEnv{ID: ieB, Patch: engine.InfraEnvPatch{StaticNetworkSelector: &sel}})
	if _, err := e.sel.Decide(context.Background(), mac(t, nmMAC)); !errors.Is(err, boot.ErrNoBoot) {
		t.Fatalf("an NMState config selected by two infra-envs assigned the MAC: %v", err)
	}
}

func TestChooseDiscovery(t *testing.T) {
	e := newEnv(t, nil)
	ch, err := e.sel.Choose(context.Background(), mac(t, nmMAC))
	if err != nil {
		t.Fatal(err)
	}
	if ch.Action != boot.ActionBoot || ch.Kernel != e.kernel || ch.Initrd != e.initrd || ch.Profile != "discovery" {
		t.Fatalf("choice %+v", ch)
	}
	if want := "console=ttyS0 ignition.firstboot ignition.platform.id=metal"; ch.Cmdline != want {
		t.Errorf("cmdline %q, want %q", ch.Cmdline, want)
	}
	files := checkAgentConf(t, e, ch.Ignition, ieA)
	if files[discovery.PullSecretPath] != pullSec {
		t.Errorf("pull secret file %q", files[discovery.PullSecretPath])
	}
	if !strings.Contains(string(ch.Ignition), "AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl") {
		t.Error("the infra-env's SSH key is not in config.ign")
	}
	if !strings.Contains(files["/etc/chrony.d/rackboot.conf"], "server 10.99.0.1 iburst") {
		t.Error("no NTP source")
	}
	checkStaticNetwork(t, files, nmMAC)
	if _, ok := files["/etc/hostname"]; ok {
		t.Error("a host without a reservation hostname got /etc/hostname")
	}
}

// checkAgentConf checks that config.ign's agent.conf names infra-env ie
// and the appliance, with a token the key ring verifies scoped to ie.
func checkAgentConf(t *testing.T, e *env, ign []byte, ie string) map[string]string {
	t.Helper()
	files := ignFiles(t, ign)
	var ac discovery.AgentConfig
	if err := json.Unmarshal([]byte(files[discovery.AgentConfigPath]), &ac); err != nil {
		t.Fatalf("agent.conf: %v", err)
	}
	if ac.InfraEnvID != ie || ac.ServiceURL != service {
		t.Fatalf("agent.conf names %s at %s, want %s at %s", ac.InfraEnvID, ac.ServiceURL, ie, service)
	}
	claims, err := e.keys.Verify(ac.Token)
	if err != nil {
		t.Fatalf("the agent token does not verify with the key ring: %v", err)
	}
	if claims.InfraEnvID != ie {
		t.Fatalf("the agent token is scoped to %q, want %s", claims.InfraEnvID, ie)
	}
	return files
}

func checkStaticNetwork(t *testing.T, files map[string]string, m string) {
	t.Helper()
	conn := files["/etc/assisted/network/host0/eth0.nmconnection"]
	if !strings.Contains(conn, "address1=192.168.111.30/24") {
		t.Errorf("no static address in eth0.nmconnection:\n%s", conn)
	}
	if ini := files["/etc/assisted/network/host0/mac_interface.ini"]; !strings.Contains(strings.ToLower(ini), m+"=eth0") {
		t.Errorf("mac_interface.ini %q does not map %s", ini, m)
	}
}

func TestReservationHostname(t *testing.T) {
	e := newEnv(t, nil)
	ch, err := e.sel.Choose(context.Background(), mac(t, resMAC))
	if err != nil {
		t.Fatal(err)
	}
	files := checkAgentConf(t, e, ch.Ignition, ieB)
	if got := files["/etc/hostname"]; strings.TrimSpace(got) != "worker-7" || ch.Hostname != "worker-7" {
		t.Fatalf("/etc/hostname %q, choice hostname %q", got, ch.Hostname)
	}
	if _, ok := files[discovery.PullSecretPath]; ok {
		t.Error("infra-env B has no pull secret, yet one was written")
	}
}

func TestInstalledHostExits(t *testing.T) {
	for _, status := range []string{"installed", "added-to-existing-cluster"} {
		e := newEnv(t, nil)
		e.apply(t, &engine.SetHostStatus{ID: hostA, Status: status})
		ch, err := e.sel.Choose(context.Background(), mac(t, hostMAC))
		if err != nil || ch.Action != boot.ActionExit {
			t.Fatalf("%s host: %+v, %v; want exit", status, ch, err)
		}
	}
}

func TestCacheAndInvalidation(t *testing.T) {
	e := newEnv(t, func(o *bootsel.Options) { o.DefaultInfraEnv = ieA })
	ctx := context.Background()
	first, err := e.sel.Choose(ctx, mac(t, stranger))
	if err != nil {
		t.Fatal(err)
	}
	other, err := e.sel.Choose(ctx, mac(t, "52:54:00:aa:00:98"))
	if err != nil {
		t.Fatal(err)
	}
	if &first.Ignition[0] != &other.Ignition[0] {
		t.Error("two hosts with nothing per-host did not share the built config")
	}
	// An unrelated write (a DHCP lease, an event) does not rebuild.
	e.apply(t, &engine.AppendEvent{Event: engine.Event{Message: "unrelated", Severity: "info"}})
	again, _ := e.sel.Choose(ctx, mac(t, stranger))
	if &again.Ignition[0] != &first.Ignition[0] {
		t.Error("an unrelated change rebuilt the config")
	}
	key := sshKeyB
	e.apply(t, &engine.UpdateInfraEnv{ID: ieA, Patch: engine.InfraEnvPatch{SSHAuthorizedKey: &key}})
	next, err := e.sel.Choose(ctx, mac(t, stranger))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(next.Ignition), "IBkPOR8lPeGXRxrUd4OnJcXf1iV2DsTRnsHgy4CIUHE7") ||
		strings.Contains(string(next.Ignition), "IOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl") {
		t.Fatal("the config after the SSH key change does not carry the new key only")
	}
	// The pull secret's own change counts too.
	e.apply(t, &engine.PutSecret{Secret: engine.Secret{Name: "ps-a", Data: map[string][]byte{engine.PullSecretKey: []byte(`{"auths":{}}`)}}})
	ps, _ := e.sel.Choose(ctx, mac(t, stranger))
	if got := ignFiles(t, ps.Ignition)[discovery.PullSecretPath]; got != `{"auths":{}}` {
		t.Fatalf("pull secret after its change: %q", got)
	}
}

func TestImageProfile(t *testing.T) {
	ctx := context.Background()
	// No image set for the infra-env's architecture and no default profile.
	e := newEnv(t, nil)
	e.apply(t, &engine.DeleteImageSet{Name: "ocp-4.16"})
	if _, err := e.sel.Choose(ctx, mac(t, hostMAC)); !errors.Is(err, bootsel.ErrNoImage) || errors.Is(err, boot.ErrNoBoot) {
		t.Fatalf("no image: %v, want ErrNoImage", err)
	}
	// The cluster's image set wins over the architecture match.
	e = newEnv(t, nil)
	e.apply(t, &engine.PutImageSet{ImageSet: engine.ImageSet{Name: "ocp-4.17", Profile: "missing"}})
	e.apply(t, &engine.CreateCluster{Cluster: engine.Cluster{ID: "eeeeeeee-0000-4000-8000-000000000005", Name: "c1", ImageSetRef: "ocp-4.17"}})
	e.apply(t, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: "ffffffff-0000-4000-8000-000000000006", Name: "rack-c",
		ClusterID: "eeeeeeee-0000-4000-8000-000000000005"}})
	if err := e.reload(t, func(st *bootsel.Settings) {
		st.Reservations = []bootsel.Reservation{{MAC: mac(t, stranger), InfraEnv: "rack-c"}}
	}); err != nil {
		t.Fatal(err)
	}
	_, err := e.sel.Choose(ctx, mac(t, stranger))
	if !errors.Is(err, bootsel.ErrNoImage) || !strings.Contains(err.Error(), `"missing"`) {
		t.Fatalf("cluster image set naming an unknown profile: %v", err)
	}
}

func TestReloadRejectsBadInput(t *testing.T) {
	e := newEnv(t, nil)
	for _, rs := range [][]bootsel.Reservation{
		{{MAC: mac(t, stranger), Hostname: "bad name\nchain http://evil/"}},
		{{MAC: net.HardwareAddr{1, 2, 3}}},
		{{MAC: mac(t, stranger)}, {MAC: mac(t, strings.ToUpper(stranger))}},
	} {
		if err := e.reload(t, func(st *bootsel.Settings) { st.Reservations = rs }); !errors.Is(err, bootsel.ErrReservation) {
			t.Errorf("%v: %v, want ErrReservation", rs, err)
		}
	}
	if err := e.reload(t, func(st *bootsel.Settings) { st.Profiles = nil }); !errors.Is(err, bootsel.ErrOptions) {
		t.Errorf("no profiles: %v, want ErrOptions", err)
	}
	// Nothing changed: the old reservation still holds.
	if d, err := e.sel.Decide(context.Background(), mac(t, resMAC)); err != nil || d.Hostname != "worker-7" {
		t.Fatalf("after refused reservations: %+v, %v", d, err)
	}
}

func TestRunFollowsTheStore(t *testing.T) {
	e := newEnv(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { e.sel.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	const newMAC = "52:54:00:aa:00:77"
	e.apply(t, &engine.RegisterHost{Host: engine.Host{ID: "dddddddd-0000-4000-8000-000000000004", InfraEnvID: ieA,
		Status: "discovering", Inventory: inventory(newMAC)}})
	waitFor(t, func() bool {
		d, err := e.sel.Decide(ctx, mac(t, newMAC))
		return err == nil && d.Source == bootsel.SourceHost && d.InfraEnvID == ieA
	})
	// The host's inventory changes NIC: the old MAC is forgotten.
	e.apply(t, &engine.UpdateHost{ID: "dddddddd-0000-4000-8000-000000000004", Patch: engine.HostPatch{Inventory: inventory("52:54:00:aa:00:78")}})
	waitFor(t, func() bool {
		_, err := e.sel.Decide(ctx, mac(t, newMAC))
		return errors.Is(err, boot.ErrNoBoot)
	})
	waitFor(t, func() bool {
		d, err := e.sel.Decide(ctx, mac(t, "52:54:00:aa:00:78"))
		return err == nil && d.Source == bootsel.SourceHost
	})
	// A change that leaves the inventory alone keeps the host's MAC.
	renamed := "renamed"
	e.apply(t, &engine.UpdateHost{ID: "dddddddd-0000-4000-8000-000000000004", Patch: engine.HostPatch{RequestedHostname: &renamed}})
	// An NMState config added later assigns its MAC; once it does, the
	// change before it has been indexed too (the feed is in order).
	e.apply(t, &engine.CreateNMStateConfig{Config: engine.NMStateConfig{Name: "static-9", Labels: map[string]string{"rack": "a"},
		Config: nmConfig, Interfaces: []engine.MACInterface{{MAC: "52:54:00:aa:00:79", Name: "eth0"}}}})
	waitFor(t, func() bool {
		d, err := e.sel.Decide(ctx, mac(t, "52:54:00:aa:00:79"))
		return err == nil && d.Source == bootsel.SourceNMState
	})
	if d, err := e.sel.Decide(ctx, mac(t, "52:54:00:aa:00:78")); err != nil || d.Source != bootsel.SourceHost {
		t.Fatalf("after an update that kept the inventory: %+v, %v", d, err)
	}
	// A deleted host's MAC is forgotten.
	e.apply(t, &engine.DeleteHost{ID: "dddddddd-0000-4000-8000-000000000004", InfraEnvID: ieA})
	waitFor(t, func() bool {
		_, err := e.sel.Decide(ctx, mac(t, "52:54:00:aa:00:78"))
		return errors.Is(err, boot.ErrNoBoot)
	})
}

// waitFor polls cond until it holds or a generous deadline passes.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline:
			t.Fatal("condition not reached")
		case <-tick.C:
		}
	}
}

func TestNoSecretsInLogsOrErrors(t *testing.T) {
	e := newEnv(t, func(o *bootsel.Options) { o.DefaultInfraEnv = ieA })
	ctx := context.Background()
	ch, err := e.sel.Choose(ctx, mac(t, stranger))
	if err != nil {
		t.Fatal(err)
	}
	var ac discovery.AgentConfig
	_ = json.Unmarshal([]byte(ignFiles(t, ch.Ignition)[discovery.AgentConfigPath]), &ac)
	// A broken override makes Build fail: its error must not carry secrets.
	bad := `{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"relative"}]}}`
	e.apply(t, &engine.UpdateInfraEnv{ID: ieA, Patch: engine.InfraEnvPatch{IgnitionOverride: &bad}})
	_, err = e.sel.Choose(ctx, mac(t, stranger))
	if !errors.Is(err, discovery.ErrInvalidOverride) {
		t.Fatalf("bad override: %v", err)
	}
	for _, s := range []string{ac.Token, pullSec, "c2VjcmV0LXVzZXI6c2VjcmV0LXBhc3M=", "AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl"} {
		if strings.Contains(e.logs.String(), s) || strings.Contains(err.Error(), s) {
			t.Errorf("a secret reached the logs or the error")
		}
	}
}

func TestReloadSwapsDefaultAndReservations(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	if e.sel.Bootable(ctx, mac(t, stranger)) {
		t.Fatal("stranger bootable before the reload")
	}
	if err := e.reload(t, func(st *bootsel.Settings) { st.DefaultInfraEnv = "rack-b"; st.Reservations = nil }); err != nil {
		t.Fatal(err)
	}
	if d, err := e.sel.Decide(ctx, mac(t, stranger)); err != nil || d.InfraEnvID != ieB || d.Source != bootsel.SourceDefault {
		t.Fatalf("after the reload: %+v, %v", d, err)
	}
	if d, _ := e.sel.Decide(ctx, mac(t, resMAC)); d.Source != bootsel.SourceDefault || d.Hostname != "" {
		t.Fatalf("a dropped reservation still holds: %+v", d)
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	e := newEnv(t, nil)
	good := bootsel.Options{Store: e.st, Keys: e.keys, ServiceURL: service, Settings: e.settings}
	for name, edit := range map[string]func(*bootsel.Options){
		"no store":        func(o *bootsel.Options) { o.Store = nil },
		"no keys":         func(o *bootsel.Options) { o.Keys = nil },
		"no profiles":     func(o *bootsel.Options) { o.Profiles = nil },
		"relative URL":    func(o *bootsel.Options) { o.ServiceURL = "10.99.0.1:8080" },
		"URL with secret": func(o *bootsel.Options) { o.ServiceURL = "http://u:p@10.99.0.1:8080" },
	} {
		o := good
		edit(&o)
		if _, err := bootsel.New(o); !errors.Is(err, bootsel.ErrOptions) {
			t.Errorf("%s: %v, want ErrOptions", name, err)
		}
	}
	if _, err := bootsel.New(good); err != nil {
		t.Fatal(err)
	}
}

func TestKernelArgs(t *testing.T) {
	for _, tc := range []struct{ base, want string }{
		{"", "ignition.firstboot ignition.platform.id=metal"},
		{"console=ttyS0 ignition.platform.id=qemu", "console=ttyS0 ignition.platform.id=qemu ignition.firstboot"},
		{"ignition.firstboot  console=tty0", "ignition.firstboot console=tty0 ignition.platform.id=metal"},
	} {
		e := newEnv(t, nil)
		if err := e.reload(t, func(st *bootsel.Settings) {
			p, _ := st.Profiles.Profile("discovery")
			p.Cmdline = tc.base
			st.Profiles = bootsel.ProfileMap{"discovery": p}
		}); err != nil {
			t.Fatal(err)
		}
		ch, err := e.sel.Choose(context.Background(), mac(t, hostMAC))
		if err != nil || ch.Cmdline != tc.want {
			t.Errorf("profile cmdline %q: got %q (%v), want %q", tc.base, ch.Cmdline, err, tc.want)
		}
	}
	e := newEnv(t, nil)
	_ = e.reload(t, func(st *bootsel.Settings) {
		st.Profiles = bootsel.ProfileMap{"discovery": {Name: "discovery", Kernel: e.kernel, Initrd: e.initrd, Cmdline: "quiet\nchain http://evil/"}}
	})
	if _, err := e.sel.Choose(context.Background(), mac(t, hostMAC)); err == nil {
		t.Fatal("an unsafe profile command line was served")
	}
}
