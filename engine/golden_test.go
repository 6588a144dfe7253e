package engine_test

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/enginetest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// sampleLog is one command of every type, stamped with fixed times.
func sampleLog() []engine.Command {
	role, approved, name := "master", true, "renamed"
	inv := []byte(`{"cpu":{"count":4},"memory":{"physical_bytes":17179869184}}`)
	exp := time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)
	cmds := []engine.Command{
		&engine.PutSecret{Secret: engine.Secret{Name: "pull", Type: "kubernetes.io/dockerconfigjson", Data: map[string][]byte{".dockerconfigjson": []byte(`{"auths":{}}`)}}},
		&engine.PutImageSet{ImageSet: engine.ImageSet{Name: "4.17", Version: "4.17.0", CPUArchitecture: "x86_64"}},
		&engine.CreateCluster{Cluster: engine.Cluster{ID: clID, Name: "c1", BaseDomain: "example.com", ControlPlaneCount: 3,
			ClusterNetworks: []engine.ClusterNetwork{{CIDR: "10.128.0.0/14", HostPrefix: 23}}, APIVIPs: []string{"192.168.1.5"}}},
		&engine.UpdateCluster{ID: clID, Patch: engine.ClusterPatch{Name: &name}},
		&engine.SetClusterStatus{ID: clID, Status: "insufficient", StatusInfo: "waiting for hosts"},
		&engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ieID, Name: "rack1", PullSecretRef: "pull", NTPSources: []string{"10.0.0.1"},
			StaticNetworkSelector: map[string]string{"rack": "1"}, CPUArchitecture: "x86_64", ImageType: "full-iso"}},
		&engine.UpdateInfraEnv{ID: ieID, Patch: engine.InfraEnvPatch{Proxy: &engine.Proxy{HTTPProxy: "http://proxy:3128"}}},
		&engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ie2ID, Name: "gone"}},
		&engine.DeleteInfraEnv{ID: ie2ID},
		&engine.CreateNMStateConfig{Config: engine.NMStateConfig{Name: "n1", Labels: map[string]string{"rack": "1"}, Config: "interfaces: []\n",
			Interfaces: []engine.MACInterface{{MAC: "52:54:00:00:00:01", Name: "eth0"}}}},
		&engine.CreateNMStateConfig{Config: engine.NMStateConfig{Name: "n2"}},
		&engine.DeleteNMStateConfig{Name: "n2"},
		&engine.RegisterHost{Host: engine.Host{ID: h1ID, InfraEnvID: ieID, Status: "discovering-unbound", Inventory: inv}},
		&engine.UpdateHost{ID: h1ID, InfraEnvID: ieID, Patch: engine.HostPatch{Role: &role, Approved: &approved,
			Validations: &[]engine.Validation{{ID: "has-cpu-cores-for-role", Category: "hardware", Status: "success", Message: "Sufficient CPU cores for role master"}}}},
		&engine.BindHost{ID: h1ID, ClusterID: clID},
		&engine.SetHostStatus{ID: h1ID, Status: "known", From: []string{"discovering-unbound", "binding"}},
		&engine.UnbindHost{ID: h1ID},
		&engine.RegisterHost{Host: engine.Host{ID: "55555555-5555-4555-8555-555555555555", InfraEnvID: ieID, Status: "discovering-unbound"}},
		&engine.DeleteHost{ID: "55555555-5555-4555-8555-555555555555"},
		&engine.AppendEvent{Event: engine.Event{Severity: "info", Message: "Host h1: registered", HostID: h1ID, InfraEnvID: ieID}},
		&engine.LeaseCommit{Leases: []engine.LeaseRecord{
			{IP: netip.MustParseAddr("10.0.0.100"), MAC: "52:54:00:00:00:01", Hostname: "h1", Expires: exp},
			{IP: netip.MustParseAddr("10.0.0.101"), MAC: "52:54:00:00:00:02", Expires: exp},
			{IP: netip.MustParseAddr("10.0.0.102"), Expires: exp},
		}},
		&engine.LeaseRelease{IPs: []netip.Addr{netip.MustParseAddr("10.0.0.101")}},
		&engine.PutImageSet{ImageSet: engine.ImageSet{Name: "old"}},
		&engine.DeleteImageSet{Name: "old"},
		&engine.PutSecret{Secret: engine.Secret{Name: "tmp"}},
		&engine.DeleteSecret{Name: "tmp"},
		&engine.CreateCluster{Cluster: engine.Cluster{ID: "66666666-6666-4666-8666-666666666666", Name: "gone"}},
		&engine.DeleteCluster{ID: "66666666-6666-4666-8666-666666666666"},
	}
	cmds = append(cmds, installLog()...)
	cmds = append(cmds, bmhLog()...)
	for i, c := range cmds {
		c.SetTime(t0.Add(time.Duration(i) * time.Second))
	}
	return cmds
}

// installLog installs h1 as a single-node cluster: commands 23–27.
func installLog() []engine.Command {
	const c7 = "77777777-7777-4777-8777-777777777777"
	sdn, overrides, hold := "OpenShiftSDN", `{"fips":true}`, false
	return []engine.Command{
		&engine.CreateCluster{Cluster: engine.Cluster{ID: c7, Name: "sno", ControlPlaneCount: 1, HoldInstallation: true}},
		&engine.UpdateCluster{ID: c7, Patch: engine.ClusterPatch{NetworkType: &sdn, InstallConfigOverrides: &overrides, HoldInstallation: &hold}},
		&engine.PutManifest{ClusterID: c7, Manifest: engine.Manifest{Folder: "manifests", FileName: "b.yaml", Content: []byte("kind: B\n")}},
		&engine.PutManifest{ClusterID: c7, Manifest: engine.Manifest{Folder: "manifests", FileName: "a.yaml", Content: []byte("kind: A\n")}},
		&engine.DeleteManifest{ClusterID: c7, Folder: "manifests", FileName: "b.yaml"},
		&engine.BindHost{ID: h1ID, ClusterID: c7},
		&engine.SetHostStatus{ID: h1ID, Status: "known"},
		&engine.SetClusterStatus{ID: c7, Status: "ready"},
		&engine.StartInstall{ClusterID: c7, Roles: map[string]string{h1ID: "master"}, Bootstrap: h1ID},
		&engine.InstallTransition{ClusterID: c7, Cluster: &engine.StatusChange{Status: "installing", Info: "Installation in progress",
			From: []string{"preparing-for-installation"}},
			Hosts: []engine.HostChange{{ID: h1ID, Status: "installing", Info: "Host is installing", From: []string{"preparing-for-installation"}}}},
		&engine.InstallProgress{ID: h1ID, InfraEnvID: ieID, Stage: "Writing image to disk", Info: "42%"},
		&engine.InstallProgress{ID: h1ID, Stage: "Done"},
		&engine.InstallTransition{ClusterID: c7, Cluster: &engine.StatusChange{Status: "installed", Info: "Cluster is installed",
			From: []string{"installing"}, Completed: true}},
	}
}

// encodeLog writes one command a line: type, body version, JSON body.
func encodeLog(t *testing.T, cmds []engine.Command) []byte {
	var b bytes.Buffer
	for _, c := range cmds {
		enc, err := engine.Encode(c)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%d %d %s\n", enc[0], enc[1], enc[2:])
	}
	return b.Bytes()
}

func decodeLog(t *testing.T, text []byte) [][]byte {
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var typ, ver byte
		head, body, _ := strings.Cut(sc.Text(), " {")
		if _, err := fmt.Sscan(head, &typ, &ver); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		out = append(out, append([]byte{typ, ver}, "{"+body...))
	}
	return out
}

func golden(t *testing.T, name string, got []byte) []byte {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	return want
}

// The command encoding is stable (testdata/log.golden), and a log written
// by an earlier build replays to the same model (testdata/model.golden):
// change either only on purpose, with a new body version or command type.
func TestGoldenLogReplays(t *testing.T) {
	enc := encodeLog(t, sampleLog())
	if want := golden(t, "log.golden", enc); !bytes.Equal(enc, want) {
		t.Errorf("command encoding changed:\n%s\nwant:\n%s", enc, want)
	}
	mach := engine.NewMachine()
	for i, entry := range decodeLog(t, golden(t, "log.golden", enc)) {
		if r := mach.Apply(uint64(i+1), entry); r.Err != nil {
			t.Fatalf("entry %d: %v", i+1, r.Err)
		}
	}
	dump := enginetest.Dump(mach.Clone())
	if want := golden(t, "model.golden", dump); !bytes.Equal(dump, want) {
		t.Errorf("replayed model differs:\n%s\nwant:\n%s", dump, want)
	}
}
