package api

import (
	"reflect"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
)

// PATCH .../hosts/{id}/installer-args (upstream's V2UpdateHostInstallerArgs)
// sets the coreos-installer flags the host's install step carries; flags
// upstream's installer does not take are a 400 that changes nothing.
func TestHostInstallerArgs(t *testing.T) {
	e := newMemEnv(t)
	runController(t, e, fakeGenerator{}, 0, nil)
	rk := readyRack(t, e, 1, 0)
	a := rk.agents[0]
	for body, reason := range map[string]string{
		"--image-url":              `"--image-url" is not an allowed coreos-installer flag`,
		"--append-karg":            "--append-karg needs a value",
		"--copy-network=yes":       "--copy-network takes no value",
		"--append-karg\nx\x1b[31m": "control character",
	} {
		e.wantError(e.do(adminCred(), "PATCH", a.path()+"/installer-args", models.InstallerArgsParams{Args: []string{body}}), 400, reason)
	}
	if h := a.host(); h.InstallerArgs != "" {
		t.Fatalf("refused installer args were stored: %q", h.InstallerArgs)
	}
	want := []string{"--append-karg", "nosmt", "--delete-karg=quiet", "--copy-network"}
	var h models.Host
	e.must(adminCred(), 201, "PATCH", a.path()+"/installer-args", models.InstallerArgsParams{Args: want}).decode(t, &h)
	if h.InstallerArgs != `["--append-karg","nosmt","--delete-karg=quiet","--copy-network"]` {
		t.Errorf("answered host installer_args %q", h.InstallerArgs)
	}
	applied := false
	e.store.Read(func(m *engine.Model) {
		for ev := range m.Events(0) {
			applied = applied || ev.Name == "host_installer_args_applied" && ev.HostID == a.id &&
				strings.HasSuffix(ev.Message, ": custom installer arguments were applied")
		}
	})
	if !applied {
		t.Error("no host_installer_args_applied event")
	}
	e.must(adminCred(), 202, "POST", "/clusters/"+rk.cluster.ID+"/actions/install", nil)
	rk.waitCluster(engine.ClusterStatusInstalling)
	if args := rk.takeInstallStep(a); !reflect.DeepEqual(args.InstallerArgs, want) {
		t.Errorf("install step installer_args %q, want %q", args.InstallerArgs, want)
	}
}
