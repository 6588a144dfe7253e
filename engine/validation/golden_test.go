package validation

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func golden(t *testing.T, name, got string) {
	t.Helper()
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, []byte(got), "", "  "); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, got)
	}
	pretty.WriteByte('\n')
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, pretty.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(pretty.Bytes(), want) {
		t.Errorf("%s differs from golden:\n%s", name, pretty.String())
	}
}

// TestGoldenHostValidationsInfo: a master with too few cores for its role
// in a three-host cluster, as rackbootctl describe host would show it.
func TestGoldenHostValidationsInfo(t *testing.T) {
	h := goodHost()
	h.Inventory.CPU.Count = 2
	h.Inventory.Memory.PhysicalBytes = 8 * gib
	rs := ValidateHost(h, DefaultThresholds())
	doc, err := rs.JSON()
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "host_validations_info.json", doc)

	info, err := ParseInfo(doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(info[CategoryHardware]) == 0 || len(info[CategoryNetwork]) == 0 || info[CategoryHardware][0].ID != HostHasInventory {
		t.Errorf("round trip lost categories: %v", info)
	}
	for _, r := range info[CategoryNetwork] {
		if r.ID == HostIgnitionDownloadable {
			t.Errorf("hidden validation %s listed", r.ID)
		}
	}
}

func TestGoldenClusterValidationsInfo(t *testing.T) {
	c := goodCluster()
	c.PullSecretSet = false
	c.Hosts[2].Status = "insufficient"
	doc, err := ValidateCluster(c, DefaultThresholds()).JSON()
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "cluster_validations_info.json", doc)
}

func TestParseInfoRejectsGarbage(t *testing.T) {
	if _, err := ParseInfo(`{"hardware":`); err == nil {
		t.Error("truncated document accepted")
	}
}
