package api

import (
	"testing"

	"github.com/rackboot/rackboot/engine/models"
)

// The installation disk defaults to the first eligible disk and can be set
// to another eligible one only.
func TestInstallationDisk(t *testing.T) {
	e := newMemEnv(t)
	ie := e.createInfraEnv("")
	h := agentFlow(t, e, ie.ID)
	if h.InstallationDiskID != "/dev/disk/by-path/pci-0000:00:04.0" || h.InstallationDiskPath != "/dev/vda" {
		t.Errorf("default disk %q (%q)", h.InstallationDiskID, h.InstallationDiskPath)
	}
	path := "/infra-envs/" + ie.ID + "/hosts/" + testHostID
	sel := func(id string) map[string]any {
		return map[string]any{"disks_selected_config": []map[string]string{{"id": id, "role": "install"}}}
	}
	e.wantError(e.do(adminCred(), "PATCH", path, sel("/dev/disk/by-path/pci-0000:00:01.1-ata-2")), 400, "ISO installation media")
	e.wantError(e.do(adminCred(), "PATCH", path, sel("/dev/disk/by-id/wwn-0x5000c500a1b2c3d4")), 400, "not eligible")
	e.wantError(e.do(adminCred(), "PATCH", path, sel("/dev/nope")), 400, "has no disk")
	var got models.APIHost
	e.must(adminCred(), 201, "PATCH", path, sel("/dev/disk/by-path/pci-0000:00:04.0")).decode(t, &got)
	if got.InstallationDiskID != "/dev/disk/by-path/pci-0000:00:04.0" {
		t.Errorf("disk %q", got.InstallationDiskID)
	}
	// Registering again keeps what the user set.
	tok := e.agentConfig(ie.ID).Token
	e.must(adminCred(), 201, "PATCH", path, map[string]any{"host_name": "kept", "approved": true})
	var reg models.HostRegistrationResponse
	e.must(cred{agent: tok}, 201, "POST", "/infra-envs/"+ie.ID+"/hosts", models.HostCreateParams{HostID: testHostID}).decode(t, &reg)
	if reg.RequestedHostname != "kept" || reg.Status != models.HostStatusDiscoveringUnbound || reg.Inventory != "" {
		t.Errorf("re-registered host: hostname %q status %q inventory %d bytes", reg.RequestedHostname, reg.Status, len(reg.Inventory))
	}
	var steps models.Steps
	e.must(cred{agent: tok}, 200, "GET", path+"/instructions", nil).decode(t, &steps)
	// The inventory again, and the periodic steps at once: the engine
	// forgot what the agent ran before it registered again.
	if len(steps.Instructions) != 2 || steps.Instructions[0].StepType != models.StepTypeInventory ||
		steps.Instructions[1].StepType != models.StepTypeNtpSynchronizer {
		t.Errorf("after re-registering: %+v", steps)
	}
}
