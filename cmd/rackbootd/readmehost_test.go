package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/rackboot/rackboot/engine/models"
)

// readmeHost plays one machine of README's rack after it booted the
// discovery image: the agent's golden inventory of a small VM made
// server-sized (32 GiB, 8 CPUs, a 200 GiB disk), named master-<n> on
// 10.99.0.1<n>/24, and answers to the periodic steps as a host whose
// peers all answer.
type readmeHost struct {
	d        *testDaemon
	n        int
	id, path string
	agent    string
}

func (h *readmeHost) ip() string { return fmt.Sprintf("10.99.0.1%d", h.n) }

// inventory is the host's inventory JSON.
func (h *readmeHost) inventory() string {
	t := h.d.t
	b, err := os.ReadFile("../rackboot-agent/inventory/testdata/qemu-bios.json")
	if err != nil {
		t.Fatal(err)
	}
	var inv models.Inventory
	if err := json.Unmarshal(b, &inv); err != nil {
		t.Fatal(err)
	}
	inv.Hostname = fmt.Sprintf("master-%d", h.n)
	inv.CPU.Count = 8
	inv.Memory.PhysicalBytes, inv.Memory.UsableBytes = 32<<30, 31<<30
	for _, d := range inv.Disks {
		if d.Name == "vda" {
			d.SizeBytes = 200 << 30
		}
		d.Serial = fmt.Sprintf("%s-%d", d.Name, h.n)
	}
	for k, nic := range inv.Interfaces {
		nic.MacAddress = fmt.Sprintf("52:54:00:99:%02x:%02x", h.n, k)
	}
	inv.Interfaces[0].IPV4Addresses = []string{h.ip() + "/24"}
	inv.Interfaces[0].IPV6Addresses = []string{fmt.Sprintf("fd00:99::1%d/64", h.n)}
	inv.Boot.PxeInterface = "01-52-54-00-99-" + fmt.Sprintf("%02x-00", h.n)
	inv.Routes = []*models.Route{{Destination: "0.0.0.0", Family: models.FamilyIPv4, Gateway: "10.99.0.1", Interface: "ens3", Metric: 100},
		{Destination: "10.99.0.0", Family: models.FamilyIPv4, Interface: "ens3", Metric: 100}}
	out, err := json.Marshal(&inv)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// register registers the host with the infra-env's agent token.
func (h *readmeHost) register(ieID string) {
	h.agent = h.d.agentOf(ieID)
	h.id = fmt.Sprintf("5eed0000-0000-4000-8000-00000000009%d", h.n)
	h.path = "/infra-envs/" + ieID + "/hosts/" + h.id
	h.d.doJSON("POST", "/infra-envs/"+ieID+"/hosts", h.agent, `{"host_id":"`+h.id+`","discovery_agent_version":"test"}`, 201, nil)
}

// poll answers the steps of one poll and returns the install step's
// arguments when there is one.
func (h *readmeHost) poll() *models.InstallStepArgs {
	var steps models.Steps
	h.d.doJSON("GET", fmt.Sprintf("%s/instructions?timestamp=%d", h.path, time.Now().Unix()), h.agent, "", 200, &steps)
	var install *models.InstallStepArgs
	for _, s := range steps.Instructions {
		out := ""
		switch s.StepType {
		case models.StepTypeInventory:
			out = h.inventory()
		case models.StepTypeConnectivityCheck:
			out = connectivity(h.d, s.Args)
		case models.StepTypeNtpSynchronizer:
			out = `{"ntp_sources":[{"source_name":"rackbootd","source_state":"synced"}]}`
		case models.StepTypeDomainResolution:
			out = noResolutions(h.d, s.Args)
		case models.StepTypeInstall:
			var a models.InstallStepArgs
			if err := json.Unmarshal([]byte(s.Args[0]), &a); err != nil {
				h.d.t.Fatal(err)
			}
			install = &a
			continue
		default:
			continue
		}
		reply, _ := json.Marshal(models.StepReply{StepID: s.StepID, StepType: s.StepType, Output: out})
		h.d.doJSON("POST", h.path+"/instructions", h.agent, string(reply), 204, nil)
	}
	return install
}

// connectivity answers a connectivity check: every peer reached, ARP,
// ping and full MTU.
func connectivity(d *testDaemon, args []string) string {
	var peers models.ConnectivityCheckParams
	if len(args) > 0 {
		if err := json.Unmarshal([]byte(args[len(args)-1]), &peers); err != nil {
			d.t.Fatalf("connectivity args %q: %v", args, err)
		}
	}
	rep := models.ConnectivityReport{RemoteHosts: []*models.ConnectivityRemoteHost{}}
	for _, p := range peers {
		rh := &models.ConnectivityRemoteHost{HostID: p.HostID}
		for _, nic := range p.Nics {
			for _, cidr := range nic.IPAddresses {
				ip, _, _ := strings.Cut(cidr, "/")
				rh.L2Connectivity = append(rh.L2Connectivity, &models.L2Connectivity{OutgoingNic: "ens3", RemoteIPAddress: ip, RemoteMac: nic.Mac, Successful: true})
				rh.L3Connectivity = append(rh.L3Connectivity, &models.L3Connectivity{OutgoingNic: "ens3", RemoteIPAddress: ip, Successful: true, AverageRTTMs: 0.3})
				rh.MtuReport = append(rh.MtuReport, &models.MtuReport{MtuSuccessful: true, OutgoingNic: "ens3", RemoteIPAddress: ip})
			}
		}
		rep.RemoteHosts = append(rep.RemoteHosts, rh)
	}
	b, _ := json.Marshal(rep)
	return string(b)
}

// noResolutions answers a domain resolution: no name resolves (no
// wildcard; the VIPs are the API's and ingress's addresses).
func noResolutions(d *testDaemon, args []string) string {
	var req models.DomainResolutionRequest
	if err := json.Unmarshal([]byte(args[0]), &req); err != nil {
		d.t.Fatal(err)
	}
	res := models.DomainResolutionResponse{Resolutions: []*models.DomainResolutionResponseDomain{}}
	for _, dom := range req.Domains {
		res.Resolutions = append(res.Resolutions, &models.DomainResolutionResponseDomain{DomainName: dom.DomainName,
			Cnames: []string{}, IPV4Addresses: []string{}, IPV6Addresses: []string{}})
	}
	b, _ := json.Marshal(res)
	return string(b)
}

// install polls until the install step, then writes the image, reboots
// and reports Done with its first-boot token, as an installing host.
func (h *readmeHost) install() {
	d := h.d
	d.t.Helper()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(waitLimit)
	var args *models.InstallStepArgs
	for args == nil {
		if args = h.poll(); args != nil {
			break
		}
		select {
		case <-tick.C:
		case <-deadline:
			d.t.Fatalf("host %s got no install step", h.id)
		}
	}
	token := d.installIgnition(h.agent, args.IgnitionURL)
	for _, st := range []string{"Starting installation", "Installing", "Writing image to disk", "Rebooting"} {
		d.doJSON("PUT", h.path+"/progress", h.agent, `{"current_stage":"`+st+`"}`, 200, nil)
	}
	d.doJSON("PUT", h.path+"/progress", "X-Secret-Key: "+token, `{"current_stage":"Done"}`, 200, nil)
}
