package installer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func userCluster() Cluster {
	c := multiNodeCluster()
	return c
}

func TestUserConfigs(t *testing.T) {
	c := userCluster()
	a, err := NewUserConfigs("testdata/roles").Generate(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string][]byte{BootstrapIgn: a.Bootstrap, MasterIgn: a.Master, WorkerIgn: a.Worker} {
		if want := readTestdata(t, "roles/"+name); !bytes.Equal(got, want) {
			t.Errorf("%s differs from the user's file", name)
		}
	}
	var md map[string]string
	if err := json.Unmarshal(a.Metadata, &md); err != nil {
		t.Fatal(err)
	}
	if md["clusterName"] != c.Name || md["clusterID"] != c.ID || md["infraID"] != c.Name+"-"+c.ID[:5] {
		t.Errorf("metadata.json = %s", a.Metadata)
	}
	ic, err := InstallConfig(c)
	if err != nil || !bytes.Equal(a.InstallConfig, ic) {
		t.Errorf("InstallConfig differs from InstallConfig(c) (%v)", err)
	}
	if a.Kubeconfig != nil || a.KubeadminPassword != nil {
		t.Error("user configs have no credentials")
	}
	for _, tc := range []struct {
		h    Host
		want []byte
	}{
		{Host{ID: "b", Role: "master", Bootstrap: true}, a.Bootstrap},
		{Host{ID: "m", Role: "master"}, a.Master},
		{Host{ID: "w", Role: "worker"}, a.Worker},
	} {
		if got, err := a.RoleConfig(tc.h); err != nil || !bytes.Equal(got, tc.want) {
			t.Errorf("RoleConfig(%+v) wrong (%v)", tc.h, err)
		}
	}
	if _, err := a.RoleConfig(Host{ID: "x", Role: "auto-assign"}); !errors.Is(err, ErrNoRole) {
		t.Errorf("RoleConfig(auto-assign) = %v, want ErrNoRole", err)
	}
}

func TestUserConfigsWithoutBootstrap(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{MasterIgn, WorkerIgn} {
		if err := os.WriteFile(filepath.Join(dir, name), readTestdata(t, "roles/"+name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a, err := NewUserConfigs(dir).Generate(context.Background(), userCluster())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bootstrap, a.Master) {
		t.Error("without bootstrap.ign the bootstrap host should get master.ign")
	}
}

func TestUserConfigsInvalid(t *testing.T) {
	missing := t.TempDir()
	if err := os.WriteFile(filepath.Join(missing, MasterIgn), readTestdata(t, "roles/master.ign"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ dir, text string }{
		{"testdata/badroles", "bootstrap.ign"},
		{missing, "worker.ign"},
		{"testdata/nonexistent", "master.ign"},
	} {
		a, err := NewUserConfigs(tc.dir).Generate(context.Background(), userCluster())
		if !errors.Is(err, ErrRoleConfig) || a != nil || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("%s: %v; want ErrRoleConfig naming %s", tc.dir, err, tc.text)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewUserConfigs("testdata/roles").Generate(ctx, userCluster()); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
