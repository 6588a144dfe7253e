package metrics

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/cluster"
	"github.com/rackboot/rackboot/cmd/rackbootd/internal/metrics/promtooltest"
	"github.com/rackboot/rackboot/dhcp"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/tftp"
)

// docsDir is the repository's docs folder.
var docsDir = filepath.Join("..", "..", "..", "..", "docs")

// fixedDHCP is a DHCPSource with one counted request and one range.
type fixedDHCP struct{}

func (fixedDHCP) Stats() dhcp.Stats {
	return dhcp.Stats{Requests: []dhcp.RequestCount{{Type: "DISCOVER", Outcome: dhcp.OutcomeReplied, N: 1}}}
}

func (fixedDHCP) Usage(time.Time) []dhcp.RangeUsage { return []dhcp.RangeUsage{{Size: 10}} }

type fixedTFTP struct{}

func (fixedTFTP) Stats() tftp.Stats { return tftp.Stats{} }

// families returns the name and type of every family a daemon with every
// service on exposes.
func families(t *testing.T) map[string]string {
	t.Helper()
	reg := New("test")
	var loop engine.LoopStats
	reg.MustRegister(NewReloads(Reloads{OK: func() uint64 { return 0 }, Failed: func() uint64 { return 0 }, LastFailed: func() bool { return false }})...)
	reg.MustRegister(NewDHCP(fixedDHCP{}, nil), NewTFTP(fixedTFTP{}), NewLoops(Loop{Name: "install", Stats: &loop}),
		NewRaft(FixedRaft{State: "Follower", LastSnapshot: time.Unix(1, 0), LastContact: time.Unix(1, 0), ApplyLatency: cluster.Histogram{}}))
	reg.MustRegister(NewState(stateStore(t)))
	// One request, so that the HTTP families have series.
	mux := http.NewServeMux()
	mux.HandleFunc("GET /x", func(http.ResponseWriter, *http.Request) {})
	reg.Instrument(mux).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/x", nil))
	mfs, err := reg.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, mf := range mfs {
		out[mf.GetName()] = strings.ToLower(mf.GetType().String())
	}
	return out
}

// TestDocsNameEveryMetric: docs/metrics.md documents every rackboot
// family with its type.
func TestDocsNameEveryMetric(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(docsDir, "metrics.md"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for name, typ := range families(t) {
		if !strings.HasPrefix(name, "rackboot_") {
			continue
		}
		names = append(names, name)
		if !strings.Contains(string(doc), "| `"+name+"` | "+typ+" |") {
			t.Errorf("docs/metrics.md has no row | `%s` | %s |", name, typ)
		}
	}
	sort.Strings(names)
	if t.Failed() {
		t.Logf("families: %s", strings.Join(names, " "))
	}
}

var metricName = regexp.MustCompile(`\b(?:rackboot|process|go)_[a-z0-9_]+`)

// TestRulesAndDashboardUseRealMetrics: every metric the alert rules and
// the dashboard query is one rackbootd exposes (a renamed metric would
// leave an alert that never fires).
func TestRulesAndDashboardUseRealMetrics(t *testing.T) {
	fams := families(t)
	for _, name := range []string{"prometheus/alerts.yml", "prometheus/dashboard.json"} {
		b, err := os.ReadFile(filepath.Join(docsDir, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range metricName.FindAllString(string(b), -1) {
			base := m
			for _, suf := range []string{"_bucket", "_count", "_sum"} {
				if b, ok := strings.CutSuffix(m, suf); ok && fams[b] == "histogram" {
					base = b
				}
			}
			if _, ok := fams[base]; !ok {
				t.Errorf("%s queries %s, which rackbootd does not expose", name, m)
			}
		}
	}
}

// TestAlertRules: promtool accepts the example rules, and its unit tests
// of them (alerts_test.yml) pass.
func TestAlertRules(t *testing.T) {
	dir := filepath.Join(docsDir, "prometheus")
	promtooltest.Run(t, "check", "rules", filepath.Join(dir, "alerts.yml"))
	promtooltest.Run(t, "test", "rules", filepath.Join(dir, "alerts_test.yml"))
}
