package cli_test

import (
	"context"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/cmd/rackbootctl/cli"
	"github.com/rackboot/rackboot/cmd/rackbootctl/internal/testserver"
	"github.com/rackboot/rackboot/engine/models"
)

// describe host shows the inventory the agent sent and the validations
// the engine computed from it (a 2-CPU host fails the CPU minimum).
func TestDescribeHost(t *testing.T) {
	r := newRig(t)
	ie := createdID(t, r.ok("create", "infra-env", "--name", "lab", "--pull-secret-file", "-"))
	registerHost(t, r, ie, hostID)
	if out := r.ok("describe", "host", hostID); !strings.Contains(out, "Inventory: not received yet") {
		t.Errorf("describe before inventory:\n%s", out)
	}
	ac, err := testserver.AgentConfig([]byte(r.ok("download", "discovery-ignition", "--infra-env", ie)))
	if err != nil {
		t.Fatal(err)
	}
	inv := &models.Inventory{
		Hostname: "small-node", CPU: &models.CPU{Count: 1, ModelName: "QEMU Virtual CPU", Architecture: "x86_64"},
		Memory:       &models.Memory{PhysicalBytes: 2 << 30, UsableBytes: 2 << 30},
		SystemVendor: &models.SystemVendor{Manufacturer: "QEMU", ProductName: "Standard PC", Virtual: true},
		Boot:         &models.Boot{CurrentBootMode: models.BootModeBIOS},
		Disks: []*models.Disk{{ID: "/dev/disk/by-path/pci-0000:00:05.0", Name: "vda", Path: "/dev/vda",
			DriveType: models.DriveTypeHDD, SizeBytes: 10 << 30, ByPath: "/dev/disk/by-path/pci-0000:00:05.0"},
			{ID: "/dev/disk/by-path/pci-0000:00:06.0", Name: "vdb", Path: "/dev/vdb", DriveType: models.DriveTypeSSD,
				SizeBytes: 200 << 30, ByPath: "/dev/disk/by-path/pci-0000:00:06.0"}},
		Interfaces: []*models.Interface{{Name: "ens3", MacAddress: "52:54:00:aa:bb:01",
			IPV4Addresses: []string{"192.168.122.11/24"}, Mtu: 1500, HasCarrier: true}},
	}
	if err := testserver.PostInventory(context.Background(), ac, hostID, inv); err != nil {
		t.Fatal(err)
	}
	out := r.ok("describe", "host", "small-node") // by the inventory's hostname
	if !strings.Contains(out, hostID) {
		t.Errorf("describe by hostname:\n%s", out)
	}
	if res := r.run("approve", "host", "no-such-node"); res.code != cli.ExitError || !strings.Contains(res.stderr, `no host has the ID or hostname "no-such-node"`) {
		t.Errorf("unknown hostname: %+v", res)
	}
	out = r.ok("describe", "host", hostID, "--infra-env", ie)
	for _, want := range []string{
		"Hostname:           small-node", "CPU:                1 × QEMU Virtual CPU (x86_64)",
		"Boot mode:          bios", "52:54:00:aa:bb:01", "192.168.122.11/24", "vda", "10.0 GiB",
		"has-min-cpu-cores", "failure",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("describe host lacks %q:\n%s", want, out)
		}
	}
	res := r.run("patch", "host", hostID, "--installation-disk", "/dev/disk/by-path/pci-0000:00:05.0")
	if res.code != cli.ExitError || !strings.Contains(res.stderr, "not eligible for installation") || !strings.Contains(res.stderr, "(HTTP 400)") {
		t.Errorf("patch to a too small disk: %+v", res)
	}
	r.ok("patch", "host", hostID, "--installation-disk", "/dev/disk/by-path/pci-0000:00:06.0")
	if out := r.ok("describe", "host", hostID); !strings.Contains(out, "Installation disk:  /dev/vdb") {
		t.Errorf("describe after choosing vdb:\n%s", out)
	}
	cl := createdID(t, r.ok("create", "cluster", "--name", "prod", "--version", "4.16", "--base-domain", "example.com",
		"--control-plane-count", "3", "--pull-secret-file", "-"))
	r.ok("bind", "host", hostID, "--cluster", cl)
	out = r.ok("describe", "cluster", cl)
	for _, want := range []string{"Name:              prod", "Pull secret:       set", hostID, "sufficient-masters-count"} {
		if !strings.Contains(out, want) {
			t.Errorf("describe cluster lacks %q:\n%s", want, out)
		}
	}
	if res := r.run("describe", "event", "x"); res.code != cli.ExitUsage {
		t.Errorf("describe event: %+v", res)
	}
	if res := r.run("describe", "infra-env", "x"); res.code != cli.ExitError || !strings.Contains(res.stderr, `no infra-env has the ID or name "x"`) {
		t.Errorf("describe infra-env x: %+v", res)
	}
}
