package agent_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/rackboot/rackboot/cmd/rackboot-agent/agent"
	"github.com/rackboot/rackboot/engine/models"
)

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "agent.json")
	doc := `{"service_url":"http://10.0.0.1:8090","infra_env_id":"` + infraEnv + `","token":"` + token + `"}`
	if err := os.WriteFile(p, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := agent.LoadConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	if c.URL != "http://10.0.0.1:8090" || c.InfraEnvID != infraEnv || c.Token != token || c.Check() != nil {
		t.Fatalf("%v", c)
	}
	c = c.Merge(agent.Config{URL: "http://127.0.0.1:1"})
	if c.URL != "http://127.0.0.1:1" || c.Token != token {
		t.Fatalf("merge: %v", c)
	}
	// The token stays out of every way a config can be printed or logged.
	var logs strings.Builder
	slog.New(slog.NewTextHandler(&logs, nil)).Info("cfg", "config", c)
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("cfg", "config", c)
	fmt.Fprintf(&logs, "%v %+v %#v %s", c, c, c, c)
	if strings.Contains(logs.String(), token) || !strings.Contains(logs.String(), "token_set=true") {
		t.Fatalf("config printed as:\n%s", logs.String())
	}
}

func TestBadConfigFiles(t *testing.T) {
	dir := t.TempDir()
	for name, doc := range map[string]string{
		"syntax":  `{"url": "http://x", "token": "` + token + `"`,
		"unknown": `{"url": "http://x", "tokn": "` + token + `"}`,
		"type":    `{"url": 5, "token": "` + token + `"}`,
		"big":     `{"url": "` + strings.Repeat("x", agent.MaxConfigBytes) + `"}`,
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := agent.LoadConfig(p)
		if !errors.Is(err, agent.ErrConfig) || strings.Contains(err.Error(), token) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := agent.LoadConfig(filepath.Join(dir, "missing")); !errors.Is(err, agent.ErrConfig) {
		t.Errorf("missing file: %v", err)
	}
	if err := (agent.Config{URL: "http://x"}).Check(); !errors.Is(err, agent.ErrConfig) || !strings.Contains(err.Error(), "infra-env") {
		t.Errorf("missing infra-env: %v", err)
	}
}

func TestHostIDAsUpstream(t *testing.T) {
	macs := []*models.Interface{{MacAddress: "52:54:00:00:00:02"}, {MacAddress: "52:54:00:00:00:01"}, {}}
	for _, tc := range []struct {
		name, serial, uuid string
		ifs                []*models.Interface
		want               string
	}{
		// md5("RB-SERIAL-42") as 8-4-4-4-12.
		{"board serial", "RB-SERIAL-42\n", "4C4C4544-0000-1111-2222-333344445555", macs, md5("RB-SERIAL-42")},
		{"placeholder serial, system uuid", "Default string", "4C4C4544-0000-1111-2222-333344445555\n", macs, "4c4c4544-0000-1111-2222-333344445555"},
		{"no serial, zero uuid, lowest MAC", "", "00000000-0000-0000-0000-000000000000", macs, md5("52:54:00:00:00:01")},
		{"nothing", "Not Specified", "garbage", nil, agent.FailureHostID},
	} {
		fsys := fstest.MapFS{
			"sys/class/dmi/id/board_serial": {Data: []byte(tc.serial)},
			"sys/class/dmi/id/product_uuid": {Data: []byte(tc.uuid)},
		}
		if got := agent.HostID(fsys, tc.ifs); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

// md5 returns the expected host id for the two inputs above, as md5sum
// prints their digests, in upstream's 8-4-4-4-12 layout.
func md5(s string) string {
	return map[string]string{
		"RB-SERIAL-42":      "673755d8-ec88-8220-2426-b4d05b54679f",
		"52:54:00:00:00:01": "99693c83-2d5b-ad7b-d26e-7c3605f8fe8d",
	}[s]
}

func TestBackoffDelays(t *testing.T) {
	b := agent.Backoff{Initial: time.Second, Max: time.Minute, Rand: func() float64 { return 0.5 }}
	want := []time.Duration{750 * time.Millisecond, 1500 * time.Millisecond, 3 * time.Second, 6 * time.Second,
		12 * time.Second, 24 * time.Second, 45 * time.Second, 45 * time.Second}
	for i, w := range want {
		if got := b.Delay(i); got != w {
			t.Errorf("attempt %d: %v, want %v", i, got, w)
		}
	}
	if got := b.Delay(1 << 20); got != 45*time.Second {
		t.Errorf("huge attempt: %v", got)
	}
	var zero agent.Backoff
	for i := range 100 {
		if d := zero.Delay(i); d < 500*time.Millisecond || d >= time.Minute {
			t.Fatalf("default backoff attempt %d: %v", i, d)
		}
	}
}

func TestApplianceClock(t *testing.T) {
	c := agent.NewApplianceClock("10.0.0.1:8090")
	if _, _, ok := c.Offset(); ok {
		t.Fatal("offset before any answer")
	}
	local := time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)
	// The service's clock is 10 s ahead; its Date header drops the fraction.
	c.Observe(local, local.Add(200*time.Millisecond), local.Add(10*time.Second+100*time.Millisecond).Truncate(time.Second))
	name, off, ok := c.Offset()
	if !ok || name != "10.0.0.1:8090" || off < 9*time.Second || off > 11*time.Second {
		t.Fatalf("%s %v %v", name, off, ok)
	}
}

// TestReadsDiscoveryIgnitionConfig reads the agent config that
// boot/discovery writes into the discovery Ignition (its golden file), so
// the two sides cannot drift apart.
func TestReadsDiscoveryIgnitionConfig(t *testing.T) {
	b, err := os.ReadFile("../../../boot/discovery/testdata/full.ign")
	if err != nil {
		t.Skipf("boot/discovery golden file: %v", err)
	}
	var ign struct {
		Storage struct {
			Files []struct {
				Path     string
				Contents struct{ Source string }
			}
		}
	}
	if err := json.Unmarshal(b, &ign); err != nil {
		t.Fatal(err)
	}
	for _, f := range ign.Storage.Files {
		if f.Path != "/etc/rackboot/agent.conf" {
			continue
		}
		doc, err := url.PathUnescape(strings.TrimPrefix(f.Contents.Source, "data:,"))
		if err != nil {
			t.Fatal(err)
		}
		c, err := agent.ParseConfig([]byte(doc), f.Path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(c.URL, "http://") || c.InfraEnvID == "" || c.Token == "" || c.Check() != nil {
			t.Fatalf("%v", c)
		}
		return
	}
	t.Fatal("no /etc/rackboot/agent.conf in the discovery Ignition")
}

func TestConfigURLAlias(t *testing.T) {
	c, err := agent.ParseConfig([]byte(`{"url":"http://a:1","infra_env_id":"x"}`), "t")
	if err != nil || c.URL != "http://a:1" {
		t.Fatalf("%v %v", c, err)
	}
	for _, bad := range []string{`{"url":"http://a:1","service_url":"http://b:2"}`, `{"url":"http://a:1"} {}`} {
		if _, err := agent.ParseConfig([]byte(bad), "t"); !errors.Is(err, agent.ErrConfig) {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
