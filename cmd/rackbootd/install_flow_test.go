package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	v35 "github.com/coreos/ignition/v2/config/v3_5"

	"github.com/rackboot/rackboot/boot/installer"
	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/ipxe"
)

// installImageSet is an image set that installs: the testbed's small-VM
// minimums, a disk image and user-supplied role configs.
const installImageSet = `
[engine]
install_timeout = "30m"

[[image_set]]
name = "testos"
version = "4.17.0"
profile = "discovery"
disk_image = "disk.img"
role_ignition_dir = "roles"
thresholds = { profile = "testbed", single_node = { cpu_cores = 2, memory_mib = 1536, disk_gb = 15 } }
`

// doJSON makes a request and decodes a 2xx JSON answer into v (nil: none).
func (d *testDaemon) doJSON(method, path, header, body string, want int, v any) {
	d.t.Helper()
	code, out := d.call(method, path, header, body)
	if code != want {
		d.t.Fatalf("%s %s: %d %s, want %d", method, path, code, out, want)
	}
	if v != nil {
		if err := json.Unmarshal([]byte(out), v); err != nil {
			d.t.Fatalf("%s %s: %v in %s", method, path, err, out)
		}
	}
}

// waitHost follows the infra-env's host watch stream until host id is in
// status.
func (d *testDaemon) waitHost(ieID, id, status string) {
	d.t.Helper()
	req, _ := http.NewRequest("GET", "http://"+d.httpAddr+apiBase+"/infra-envs/"+ieID+"/hosts?watch=true&timeout_seconds=60", nil)
	req.Header.Set("Authorization", "Bearer "+d.adminToken())
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		d.t.Fatal(err)
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		var ev struct {
			Object struct{ ID, Status string } `json:"object"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Object.ID == id && ev.Object.Status == status {
			return
		}
	}
	d.t.Fatalf("host %s never became %s", id, status)
}

// waitCluster asks for the cluster every tick until it is in status or
// the deadline passes.
func (d *testDaemon) waitCluster(id, status string) {
	d.t.Helper()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(waitLimit)
	for {
		var c struct {
			Status          string `json:"status"`
			StatusInfo      string `json:"status_info"`
			ValidationsInfo string `json:"validations_info"`
			Hosts           []struct {
				Status     string `json:"status"`
				StatusInfo string `json:"status_info"`
			} `json:"hosts"`
		}
		d.doJSON("GET", "/clusters/"+id, "Authorization: Bearer "+d.adminToken(), "", 200, &c)
		if c.Status == status {
			return
		}
		select {
		case <-tick.C:
		case <-deadline:
			d.t.Fatalf("cluster is %s (%s; %s; hosts %+v), want %s", c.Status, c.StatusInfo, c.ValidationsInfo, c.Hosts, status)
		}
	}
}

// A single-node installation through rackbootd with a fake agent: the
// leader's install controller generates from the image set's role configs,
// the install step names the disk image the boot server serves, the
// host's Ignition carries the first-boot token, and the cluster ends
// installed with its files downloadable.
func TestInstallThroughDaemon(t *testing.T) {
	d := newTestDaemon(t, freePort(t, "tcp"), freePort(t, "udp"))
	writeFile(t, d.dir, "disk.img", strings.Repeat("disk image ", 1000))
	writeFile(t, d.dir, "roles/master.ign", `{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"/etc/role","contents":{"source":"data:,master"}}]}}`)
	writeFile(t, d.dir, "roles/worker.ign", `{"ignition":{"version":"3.4.0"}}`)
	d.writeConfig(d.configText("console=ttyS0", "vmlinuz") + installImageSet)
	d.start(nil)
	d.waitNote("READY=1")
	admin := "Authorization: Bearer " + d.adminToken()
	var c struct{ ID, Status string }
	d.doJSON("POST", "/clusters", admin, `{"name":"sno","openshift_version":"4.17","pull_secret":"{\"auths\":{}}",
		"base_dns_domain":"example.com","high_availability_mode":"None","machine_networks":[{"cidr":"10.55.0.0/16"}],
		"cluster_networks":[{"cidr":"10.128.0.0/14","host_prefix":23}],"service_networks":[{"cidr":"172.30.0.0/16"}]}`, 201, &c)
	var ie struct{ ID string }
	d.doJSON("POST", "/infra-envs", admin, `{"name":"sno","pull_secret":"{\"auths\":{}}","cluster_id":"`+c.ID+`"}`, 201, &ie)
	agent := d.agentOf(ie.ID)
	const hostID = "5eed0000-0000-4000-8000-000000000001"
	hostPath := "/infra-envs/" + ie.ID + "/hosts/" + hostID
	d.doJSON("POST", "/infra-envs/"+ie.ID+"/hosts", agent, `{"host_id":"`+hostID+`"}`, 201, nil)
	d.answerSteps(agent, hostPath)
	d.doJSON("PATCH", hostPath, admin, `{"approved":true,"host_role":"master"}`, 201, nil)
	d.waitCluster(c.ID, "ready")

	d.doJSON("POST", "/clusters/"+c.ID+"/actions/install", admin, "", 202, nil)
	d.waitHost(ie.ID, hostID, models.HostStatusInstalling)
	args := d.installStep(agent, hostPath)
	if res, err := http.Get(args.ImageURL); err != nil || res.StatusCode != 200 {
		t.Fatalf("disk image %s: %v %v", args.ImageURL, err, res)
	} else {
		n, _ := io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if n != args.ImageSize || n != 11000 {
			t.Errorf("disk image of %d bytes, args say %d", n, args.ImageSize)
		}
	}
	token := d.installIgnition(agent, args.IgnitionURL)
	for _, st := range []string{"Starting installation", "Installing", "Writing image to disk", "Rebooting"} {
		d.doJSON("PUT", hostPath+"/progress", agent, `{"current_stage":"`+st+`"}`, 200, nil)
	}
	d.doJSON("PUT", hostPath+"/progress", "X-Secret-Key: "+token, `{"current_stage":"Done"}`, 200, nil)
	d.waitCluster(c.ID, "installed")
	for _, f := range []string{"master.ign", "install-config.yaml", "metadata.json"} {
		if code, body := d.call("GET", "/clusters/"+c.ID+"/downloads/files?file_name="+f, admin, ""); code != 200 || body == "" {
			t.Errorf("%s: %d %q", f, code, body)
		}
	}
	// The installed host boots from disk.
	if body := d.get("/boot/52-54-00-12-34-01/script.ipxe"); body != string(ipxe.ExitScript()) {
		t.Errorf("installed host's script: %q", body)
	}
}

// answerSteps polls once with the host's clock and answers the inventory
// (the agent's golden small VM) and the periodic steps as a host alone on
// its network would.
func (d *testDaemon) answerSteps(agent, hostPath string) {
	d.t.Helper()
	inv, err := os.ReadFile("../rackboot-agent/inventory/testdata/qemu-bios.json")
	if err != nil {
		d.t.Fatal(err)
	}
	d.answerStepsWith(agent, hostPath, inv)
}

// answerStepsWith is answerSteps with the inventory inv.
func (d *testDaemon) answerStepsWith(agent, hostPath string, inv []byte) {
	d.t.Helper()
	var steps models.Steps
	d.doJSON("GET", fmt.Sprintf("%s/instructions?timestamp=%d", hostPath, time.Now().Unix()), agent, "", 200, &steps)
	for _, s := range steps.Instructions {
		var out string
		switch s.StepType {
		case models.StepTypeInventory:
			out = string(inv)
		case models.StepTypeConnectivityCheck:
			out = `{"remote_hosts":[]}`
		case models.StepTypeNtpSynchronizer:
			out = `{"ntp_sources":[{"source_name":"rackbootd","source_state":"synced"}]}`
		case models.StepTypeDomainResolution:
			var req models.DomainResolutionRequest
			if err := json.Unmarshal([]byte(s.Args[0]), &req); err != nil {
				d.t.Fatal(err)
			}
			res := models.DomainResolutionResponse{Resolutions: []*models.DomainResolutionResponseDomain{}}
			for _, dom := range req.Domains {
				res.Resolutions = append(res.Resolutions, &models.DomainResolutionResponseDomain{DomainName: dom.DomainName,
					Cnames: []string{}, IPV4Addresses: []string{}, IPV6Addresses: []string{}})
			}
			b, _ := json.Marshal(res)
			out = string(b)
		default:
			continue
		}
		reply, _ := json.Marshal(models.StepReply{StepID: s.StepID, StepType: s.StepType, Output: out})
		d.doJSON("POST", hostPath+"/instructions", agent, string(reply), 204, nil)
	}
}

// installStep polls for the install step and returns its arguments.
func (d *testDaemon) installStep(agent, hostPath string) models.InstallStepArgs {
	d.t.Helper()
	var steps models.Steps
	d.doJSON("GET", hostPath+"/instructions", agent, "", 200, &steps)
	for _, s := range steps.Instructions {
		if s.StepType == models.StepTypeInstall {
			var a models.InstallStepArgs
			if err := json.Unmarshal([]byte(s.Args[0]), &a); err != nil {
				d.t.Fatal(err)
			}
			if a.BootDevice != "/dev/vda" || !strings.HasSuffix(a.ImageURL, "/images/testos/disk.img") || len(a.ImageSHA256) != 64 {
				d.t.Errorf("install args %+v", a)
			}
			return a
		}
	}
	d.t.Fatalf("no install step in %+v", steps)
	return models.InstallStepArgs{}
}

// installIgnition downloads the host's install Ignition and returns its
// first-boot token.
func (d *testDaemon) installIgnition(agent, ignitionURL string) string {
	d.t.Helper()
	u, err := url.Parse(ignitionURL)
	if err != nil {
		d.t.Fatal(err)
	}
	var p models.HostIgnitionParams
	d.doJSON("GET", strings.TrimPrefix(u.Path, apiBase), agent, "", 200, &p)
	cfg, _, err := v35.Parse([]byte(p.Config))
	if err != nil {
		d.t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range cfg.Storage.Files {
		if f.Contents.Source != nil {
			files[f.Path], _ = url.PathUnescape(strings.TrimPrefix(*f.Contents.Source, "data:,"))
		}
	}
	if files["/etc/role"] != "master" || files[installer.HostnamePath] == "" {
		d.t.Errorf("install Ignition files %v", files)
	}
	return strings.TrimSpace(files[installer.FirstBootTokenPath])
}
