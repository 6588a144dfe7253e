package bootsel_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/rackboot/rackboot/boot"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/bootsel"
	"github.com/rackboot/rackboot/engine/enginetest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// The model every test starts from: infra-env A (the cluster's, with a
// pull secret and static networking for nmMAC) and infra-env B (late
// binding, no pull secret); one image set naming profile "discovery".
const (
	ieA      = "aaaaaaaa-0000-4000-8000-000000000001"
	ieB      = "bbbbbbbb-0000-4000-8000-000000000002"
	hostA    = "cccccccc-0000-4000-8000-000000000003"
	hostMAC  = "52:54:00:aa:00:01" // registered in infra-env B
	resMAC   = "52:54:00:aa:00:02" // reserved: infra-env B, hostname worker-7
	nmMAC    = "52:54:00:aa:00:03" // in NMState config "static-3", selected by A
	stranger = "52:54:00:aa:00:99"
	pullSec  = `{"auths":{"quay.io":{"auth":"c2VjcmV0LXVzZXI6c2VjcmV0LXBhc3M="}}}`
	sshKeyA  = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl a@example"
	sshKeyB  = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBkPOR8lPeGXRxrUd4OnJcXf1iV2DsTRnsHgy4CIUHE7 b@example"
	service  = "http://10.99.0.1:8080"
)

const nmConfig = `interfaces:
  - name: eth0
    type: ethernet
    state: up
    ipv4:
      enabled: true
      dhcp: false
      address:
        - ip: 192.168.111.30
          prefix-length: 24
    ipv6:
      enabled: false
`

// env is a store holding the model above, a key ring loaded from it, real
// boot files and a Selector over them.
type env struct {
	st                 *enginetest.Store
	keys               *auth.KeyRing
	sel                *bootsel.Selector
	kernel, initrd     string
	kernelData, baseRD []byte
	logs               *syncBuffer
	settings           bootsel.Settings // as last loaded
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// newEnv builds the env; opt may change the options before New.
func newEnv(t testing.TB, opt func(*bootsel.Options)) *env {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	e := &env{st: enginetest.NewStore(), kernel: filepath.Join(dir, "vmlinuz"), initrd: filepath.Join(dir, "initrd.img"),
		kernelData: bytes.Repeat([]byte("kernel!"), 3000), baseRD: bytes.Repeat([]byte("initrd"), 5001), logs: &syncBuffer{}}
	write(t, e.kernel, e.kernelData)
	write(t, e.initrd, e.baseRD)
	e.apply(t, &engine.PutSecret{Secret: engine.Secret{Name: "ps-a", Type: "pull-secret",
		Data: map[string][]byte{engine.PullSecretKey: []byte(pullSec)}}})
	e.apply(t, &engine.PutImageSet{ImageSet: engine.ImageSet{Name: "ocp-4.16", CPUArchitecture: "x86_64", Profile: "discovery"}})
	e.apply(t, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ieA, Name: "rack-a", PullSecretRef: "ps-a",
		SSHAuthorizedKey: sshKeyA, NTPSources: []string{"10.99.0.1"},
		StaticNetworkSelector: map[string]string{"rack": "a"}}})
	e.apply(t, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ieB, Name: "rack-b"}})
	e.apply(t, &engine.CreateNMStateConfig{Config: engine.NMStateConfig{Name: "static-3", Labels: map[string]string{"rack": "a"},
		Config: nmConfig, Interfaces: []engine.MACInterface{{MAC: nmMAC, Name: "eth0"}}}})
	e.apply(t, &engine.RegisterHost{Host: engine.Host{ID: hostA, InfraEnvID: ieB, Status: "known",
		Inventory: inventory(hostMAC, "52:54:00:aa:01:01")}})
	keys, err := engine.LoadKeyRing(ctx, e.st)
	if err != nil {
		t.Fatal(err)
	}
	e.keys = keys
	opts := bootsel.Options{
		Store: e.st, Keys: keys, ServiceURL: service,
		Settings: bootsel.Settings{
			Profiles:     bootsel.NewProfileMap([]boot.Profile{{Name: "discovery", Kernel: e.kernel, Initrd: e.initrd, Cmdline: "console=ttyS0"}}),
			Reservations: []bootsel.Reservation{{MAC: mac(t, resMAC), InfraEnv: "rack-b", Hostname: "worker-7"}},
		},
		Log: slog.New(slog.NewJSONHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	if opt != nil {
		opt(&opts)
	}
	if e.sel, err = bootsel.New(opts); err != nil {
		t.Fatal(err)
	}
	e.settings = opts.Settings
	return e
}

// reload changes the settings with edit and reloads them.
func (e *env) reload(t testing.TB, edit func(*bootsel.Settings)) error {
	t.Helper()
	st := e.settings
	st.Reservations = slices.Clone(st.Reservations)
	edit(&st)
	if err := e.sel.Reload(st); err != nil {
		return err
	}
	e.settings = st
	return nil
}

func (e *env) apply(t testing.TB, cmd engine.Command) {
	t.Helper()
	if _, err := e.st.Apply(context.Background(), cmd); err != nil {
		t.Fatalf("%T: %v", cmd, err)
	}
}

func inventory(macs ...string) json.RawMessage {
	type nic struct {
		MAC string `json:"mac_address"`
	}
	var inv struct {
		Interfaces []nic `json:"interfaces"`
	}
	for _, m := range macs {
		inv.Interfaces = append(inv.Interfaces, nic{m})
	}
	b, _ := json.Marshal(inv)
	return b
}

func write(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func mac(t testing.TB, s string) net.HardwareAddr {
	t.Helper()
	m, err := net.ParseMAC(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// ignFiles decodes a config.ign's storage files: path → decoded contents.
func ignFiles(t *testing.T, ign []byte) map[string]string {
	t.Helper()
	var cfg struct {
		Storage struct {
			Files []struct {
				Path     string `json:"path"`
				Contents struct {
					Source string `json:"source"`
				} `json:"contents"`
			} `json:"files"`
		} `json:"storage"`
	}
	if err := json.Unmarshal(ign, &cfg); err != nil {
		t.Fatalf("config.ign is not JSON: %v", err)
	}
	out := map[string]string{}
	for _, f := range cfg.Storage.Files {
		out[f.Path] = dataURL(t, f.Contents.Source)
	}
	return out
}
