package config

import (
	"errors"
	"flag"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine/validation"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/bad")

// TestBadFiles checks the exact messages for every kind of error: each
// testdata/bad/X.toml against testdata/bad/X.golden.
func TestBadFiles(t *testing.T) {
	files, err := filepath.Glob("testdata/bad/*.toml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no bad files: %v", err)
	}
	for _, name := range files {
		t.Run(filepath.Base(name), func(t *testing.T) {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := Parse(name, data, "/")
			if err == nil {
				t.Fatalf("Parse accepted it: %+v", cfg)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error does not wrap ErrInvalid: %v", err)
			}
			got := err.Error() + "\n"
			golden := strings.TrimSuffix(name, ".toml") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

func TestGoodFile(t *testing.T) {
	cfg, err := Load("testdata/good/rackboot.toml")
	if err != nil {
		t.Fatal(err)
	}
	dir, _ := filepath.Abs("testdata/good")
	if cfg.Server.DataDir != filepath.Join(dir, "state") {
		t.Errorf("data_dir = %q", cfg.Server.DataDir)
	}
	if got := cfg.BaseURL(); got != "http://10.99.0.1:8080" {
		t.Errorf("BaseURL = %q", got)
	}
	d := cfg.DHCP
	if d.Mode != ModeFull || d.Subnet != netip.MustParsePrefix("10.99.0.0/24") || d.LeaseTime != 30*time.Minute {
		t.Errorf("dhcp = %+v", d)
	}
	wantRanges := []Range{
		{netip.MustParseAddr("10.99.0.100"), netip.MustParseAddr("10.99.0.149")},
		{netip.MustParseAddr("10.99.0.150"), netip.MustParseAddr("10.99.0.200")},
	}
	if len(d.Ranges) != 2 || d.Ranges[0] != wantRanges[0] || d.Ranges[1] != wantRanges[1] {
		t.Errorf("ranges = %v", d.Ranges)
	}
	if len(d.Reservations) != 2 || d.Reservations[1].MAC.String() != "52:54:00:00:00:02" || d.Reservations[0].Hostname != "master-0" {
		t.Errorf("reservations = %+v", d.Reservations)
	}
	if !cfg.TFTP.Enabled || cfg.TFTP.Root != filepath.Join(dir, "tftp") || cfg.TFTP.Listen != "127.0.0.1:6969" {
		t.Errorf("tftp = %+v", cfg.TFTP)
	}
	if len(cfg.Profiles) != 2 || cfg.Profiles[0].Ignition != filepath.Join(dir, "discovery.ign") ||
		len(cfg.Profiles[0].MACs) != 0 || cfg.Profiles[1].MACs[0].String() != "52:54:00:00:00:02" {
		t.Errorf("profiles = %+v", cfg.Profiles)
	}
}

func TestDefaults(t *testing.T) {
	cfg, err := Parse("min.toml", []byte("[server]\nadvertise = \"127.0.0.1\"\n[tftp]\nenabled = false\n"), "/")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Server.HTTPListen != ":8080" || cfg.Server.DataDir != "/var/lib/rackboot" || cfg.Server.LogFormat != "text" {
		t.Errorf("server = %+v", cfg.Server)
	}
	if cfg.DHCP.Mode != ModeOff || cfg.TFTP.Listen != ":69" || cfg.TFTP.Root != "/usr/lib/ipxe" {
		t.Errorf("dhcp = %+v, tftp = %+v", cfg.DHCP, cfg.TFTP)
	}
}

// TestPackagedConfig parses the default configuration the .deb installs,
// with the files it names created under a temporary root.
func TestPackagedConfig(t *testing.T) {
	const path = "../../../../packaging/rackboot.toml"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if _, err := Parse(path, data, root); err == nil {
		t.Fatal("the packaged config passed with none of its files present")
	}
	if err := os.MkdirAll(filepath.Join(root, "usr/lib/ipxe"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"vmlinuz", "initrd.img", "discovery.ign"} {
		p := filepath.Join(root, "srv/rackboot", f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := Parse(path, data, root)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.DHCP.Mode != ModeFull || len(cfg.Profiles) != 1 {
		t.Errorf("packaged config: %+v", cfg)
	}
}

func TestBroadcast(t *testing.T) {
	for in, want := range map[string]string{"10.99.0.0/24": "10.99.0.255", "10.0.0.0/8": "10.255.255.255", "192.168.4.0/30": "192.168.4.3"} {
		if got := broadcast(netip.MustParsePrefix(in)); got.String() != want {
			t.Errorf("broadcast(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestRangeContains(t *testing.T) {
	r := Range{netip.MustParseAddr("10.0.0.10"), netip.MustParseAddr("10.0.0.20")}
	for a, want := range map[string]bool{"10.0.0.9": false, "10.0.0.10": true, "10.0.0.20": true, "10.0.0.21": false} {
		if r.Contains(netip.MustParseAddr(a)) != want {
			t.Errorf("Contains(%s) != %v", a, want)
		}
	}
	_ = net.HardwareAddr{}
}

func TestInlineTables(t *testing.T) {
	doc := `server = {advertise = "127.0.0.1"}
tftp.enabled = false
dhcp = {mode = "full", subnet = "10.1.0.0/24", reservation = [{mac = "52:54:00:00:00:01", ip = "10.1.0.5"}, {mac = "52:54:00:00:00:02", ip = "10.1.1.5"}]}
`
	_, err := Parse("inline.toml", []byte(doc), "/")
	want := "inline.toml:3:142: dhcp.reservation.ip 10.1.1.5 is outside dhcp.subnet 10.1.0.0/24"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

// FuzzParse checks that no document makes Parse panic.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*/*.toml")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse("fuzz.toml", data, t.TempDir())
		if (cfg == nil) == (err == nil) {
			t.Fatalf("Parse returned %v and %v", cfg, err)
		}
	})
}

func TestErrorAt(t *testing.T) {
	cfg, err := Load("testdata/good/rackboot.toml")
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{
		"profile[0].ignition":          "testdata/good/rackboot.toml:35:12: bad",
		"profile[1].ignition":          "testdata/good/rackboot.toml:38:3: bad",
		"dhcp.reservation[0].hostname": "testdata/good/rackboot.toml:20:12: bad",
	} {
		if got := cfg.ErrorAt(key, "bad").Error(); got != want {
			t.Errorf("ErrorAt(%s) = %s, want %s", key, got, want)
		}
	}
}

func TestEngineSettings(t *testing.T) {
	doc := `[server]
advertise = "127.0.0.1"
[tftp]
enabled = false
[[dhcp.reservation]]
mac = "52:54:00:00:00:01"
infra_env = "rack 1"
[engine]
default_infra_env = "rack 1"
disconnect_after = "5m"
thresholds = { profile = "testbed", master = { cpu_cores = 2, memory_mib = 4096, disk_gb = 20 }, worker = { cpu_cores = 1 }, installation_disk_speed_threshold_ms = 40 }
[api]
admin_remote = true
`
	cfg, err := Parse("engine.toml", []byte(doc), "/")
	if err != nil {
		t.Fatal(err)
	}
	e := cfg.Engine
	th := e.Thresholds
	if e.DefaultInfraEnv != "rack 1" || e.MonitorInterval != 30*time.Second || th.DisconnectAfter != 5*time.Minute {
		t.Errorf("engine = %+v", e)
	}
	if th.Profile != "testbed" || th.Master.CPUCores != 2 || th.Master.MemoryMiB != 4096 || th.Master.DiskGB != 20 ||
		th.Worker.CPUCores != 1 || th.Worker.MemoryMiB != 8192 || th.SingleNode.CPUCores != 8 || th.MemoryToleranceMiB != 100 ||
		th.DiskSpeedThresholdMs != 40 {
		t.Errorf("thresholds = %+v", th)
	}
	if !cfg.API.AdminRemote || cfg.DHCP.Reservations[0].InfraEnv != "rack 1" {
		t.Errorf("api = %+v, reservation = %+v", cfg.API, cfg.DHCP.Reservations[0])
	}

	def, err := Parse("min.toml", []byte("[server]\nadvertise = \"127.0.0.1\"\n[tftp]\nenabled = false\n"), "/")
	if err != nil {
		t.Fatal(err)
	}
	up := validation.DefaultThresholds()
	if def.Engine.Thresholds != up || def.API.AdminRemote || def.Engine.MonitorInterval != 30*time.Second {
		t.Errorf("defaults: engine %+v api %+v", def.Engine, def.API)
	}
}

// TestPackagedThresholdsExample: the commented thresholds line of the
// packaged configuration is valid once uncommented.
func TestPackagedThresholdsExample(t *testing.T) {
	data, err := os.ReadFile("../../../../packaging/rackboot.toml")
	if err != nil {
		t.Fatal(err)
	}
	var line string
	for l := range strings.SplitSeq(string(data), "\n") {
		if strings.HasPrefix(l, "# thresholds = ") {
			line = strings.TrimPrefix(l, "# ")
		}
	}
	if line == "" {
		t.Fatal("no thresholds example in the packaged configuration")
	}
	doc := "[server]\nadvertise = \"127.0.0.1\"\n[tftp]\nenabled = false\n[engine]\n" + line + "\n"
	cfg, err := Parse("example.toml", []byte(doc), "/")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Engine.Thresholds.Profile != "testbed" {
		t.Errorf("thresholds = %+v", cfg.Engine.Thresholds)
	}
}
