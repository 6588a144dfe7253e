package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/cmd/rackbootd/internal/config"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/enginetest"
	"github.com/rackboot/rackboot/engine/validation"
)

// TestSyncImageSets: the file's image sets are written once (a second sync
// with the same file changes nothing), a changed one is replaced, one that
// left the file is deleted, and an image set the file never made stays.
func TestSyncImageSets(t *testing.T) {
	ctx := context.Background()
	st := enginetest.NewStore()
	if _, err := st.Apply(ctx, &engine.PutImageSet{ImageSet: engine.ImageSet{Name: "api-made", Profile: "discovery"}}); err != nil {
		t.Fatal(err)
	}
	small := &validation.Thresholds{Profile: "testbed", Worker: validation.Requirements{CPUCores: 1}}
	sets := []config.ImageSet{
		{Name: "testbed", CPUArch: "x86_64", Profile: "discovery", Thresholds: small},
		{Name: "upstream", CPUArch: "arm64", Profile: "discovery"},
	}
	sync := func(sets []config.ImageSet, wantChanges int) {
		t.Helper()
		if n, err := syncImageSets(ctx, st, sets); err != nil || n != wantChanges {
			t.Fatalf("sync: %d changes, %v; want %d", n, err, wantChanges)
		}
	}
	sync(sets, 2)
	sync(sets, 0)
	sets[1].Version = "4.18.0"
	sync(sets, 1)
	sync(sets[:1], 1)
	var names []string
	var tb engine.ImageSet
	st.Read(func(m *engine.Model) {
		for is := range m.ImageSets() {
			names = append(names, is.Name)
		}
		tb, _ = m.ImageSet("testbed")
	})
	if strings.Join(names, " ") != "api-made testbed" {
		t.Errorf("image sets %v, want api-made and testbed", names)
	}
	if tb.Source != engine.ImageSetSourceConfig || tb.Thresholds == nil ||
		*tb.Thresholds != (engine.Thresholds{Profile: "testbed", Worker: engine.Minimums{CPUCores: 1}}) {
		t.Errorf("testbed image set %+v", tb)
	}
}

// testbedImageSet is an [[image_set]] booting profile discovery, with the
// testbed's minimums when thresholds is true.
func testbedImageSet(thresholds bool) string {
	s := "\n[[image_set]]\nname = \"testbed\"\nprofile = \"discovery\"\n"
	if thresholds {
		s += `thresholds = { profile = "testbed", master = { cpu_cores = 2, memory_mib = 1536, disk_gb = 15 }, worker = { cpu_cores = 1, memory_mib = 1024, disk_gb = 15 } }` + "\n"
	}
	return s
}

// TestImageSetThresholdsFromConfig: rackbootd validates a small VM's real
// inventory (2 cores, 2 GiB, 20 GB) against the thresholds of the
// [[image_set]] its infra-env boots: known-unbound while that image set
// names the testbed profile, insufficient-unbound (upstream's minimums)
// after a SIGHUP with the thresholds table removed.
func TestImageSetThresholdsFromConfig(t *testing.T) {
	d := newTestDaemon(t, freePort(t, "tcp"), freePort(t, "udp"))
	d.writeConfig(d.configText("console=ttyS0", "vmlinuz") + testbedImageSet(true))
	d.start(nil)
	d.waitNote("READY=1")
	id := d.createInfraEnv("rack")
	agent := d.agentOf(id)
	const hostID = "5eed0000-0000-4000-8000-000000000001"
	hostPath := "/infra-envs/" + id + "/hosts/" + hostID
	if code, body := d.call("POST", "/infra-envs/"+id+"/hosts", agent, `{"host_id":"`+hostID+`"}`); code != http.StatusCreated {
		t.Fatalf("register: %d %s", code, body)
	}
	d.replyInventory(agent, hostPath)
	if st, info := d.hostStatus(hostPath); st != "known-unbound" {
		t.Errorf("under the testbed image set: host %s (%s), want known-unbound", st, info)
	}

	d.writeConfig(d.configText("console=ttyS0", "vmlinuz") + testbedImageSet(false))
	if st := d.reload(); !strings.Contains(st, "STATUS=reloaded") {
		t.Fatalf("reload: %s", st)
	}
	admin := "Authorization: Bearer " + d.adminToken()
	if code, body := d.call("PATCH", hostPath, admin, `{"host_name":"vm1"}`); code != http.StatusCreated {
		t.Fatalf("update host: %d %s", code, body)
	}
	if st, info := d.hostStatus(hostPath); st != "insufficient-unbound" {
		t.Errorf("under upstream's minimums: host %s (%s), want insufficient-unbound", st, info)
	}
}

// agentOf is the X-Secret-Key header of the infra-env's agent, from its
// discovery.ign.
func (d *testDaemon) agentOf(ieID string) string {
	d.t.Helper()
	code, body := d.call("GET", "/infra-envs/"+ieID+"/downloads/files?file_name=discovery.ign", "Authorization: Bearer "+d.adminToken(), "")
	if code != http.StatusOK {
		d.t.Fatalf("discovery.ign: %d %s", code, body)
	}
	ac, ok := agentConfOf(d.t, decodeIgnition(d.t, []byte(body)))
	if !ok || ac.Token == "" {
		d.t.Fatalf("discovery.ign has no agent.conf: %+v", ac)
	}
	return "X-Secret-Key: " + ac.Token
}

// replyInventory answers the host's inventory step with the agent's golden
// inventory of a small QEMU VM.
func (d *testDaemon) replyInventory(agent, hostPath string) {
	d.t.Helper()
	inv, err := os.ReadFile("../rackboot-agent/inventory/testdata/qemu-bios.json")
	if err != nil {
		d.t.Fatal(err)
	}
	code, body := d.call("GET", hostPath+"/instructions", agent, "")
	var steps struct {
		Instructions []struct {
			StepID   string `json:"step_id"`
			StepType string `json:"step_type"`
		} `json:"instructions"`
	}
	if code != http.StatusOK || json.Unmarshal([]byte(body), &steps) != nil {
		d.t.Fatalf("instructions: %d %s", code, body)
	}
	for _, s := range steps.Instructions {
		if s.StepType != "inventory" {
			continue
		}
		reply, _ := json.Marshal(map[string]any{"step_id": s.StepID, "step_type": "inventory", "exit_code": 0, "output": string(inv)})
		if code, body := d.call("POST", hostPath+"/instructions", agent, string(reply)); code != http.StatusNoContent {
			d.t.Fatalf("inventory reply: %d %s", code, body)
		}
		return
	}
	d.t.Fatalf("no inventory step in %s", body)
}

// hostStatus is the host's status and status_info, read as the admin.
func (d *testDaemon) hostStatus(hostPath string) (status, info string) {
	d.t.Helper()
	code, body := d.call("GET", hostPath, "Authorization: Bearer "+d.adminToken(), "")
	var h struct {
		Status     string `json:"status"`
		StatusInfo string `json:"status_info"`
	}
	if code != http.StatusOK || json.Unmarshal([]byte(body), &h) != nil {
		d.t.Fatalf("get host: %d %s", code, body)
	}
	return h.Status, h.StatusInfo
}
