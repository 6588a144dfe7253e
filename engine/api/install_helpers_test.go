package api

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/rackboot/rackboot/cmd/rackboot-agent/steps"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
)

// testImageSet is the image set the install tests' clusters get: a disk
// image and a boot profile.
func testImageSet() engine.ImageSet {
	small := engine.Minimums{CPUCores: 1, MemoryMiB: 1024, DiskGB: 10}
	return engine.ImageSet{Name: "testos-1", Version: "4.17.0", CPUArchitecture: "x86_64", Profile: "testos",
		DiskImage:  engine.DiskImage{Path: "/var/lib/rackboot/disk.img", SHA256: "ab12", Size: 4096},
		Thresholds: &engine.Thresholds{Profile: "test-vms", Master: small, Worker: small, SingleNode: small}}
}

// rack is a cluster and its infra-env with fake agents: each reports the
// golden inventory with its own MAC and address in 10.77.0.0/24, sees
// every other host in its connectivity check, and runs the other periodic
// steps with the agent's executors.
type rack struct {
	t       *testing.T
	e       *env
	cluster models.Cluster
	ie      models.InfraEnv
	agents  []*stepAgent
}

// newRack creates the image set, a cluster of masters control-plane hosts
// (1: single node, no VIPs) and an infra-env, and registers n hosts.
func newRack(t *testing.T, e *env, masters, n int) *rack {
	t.Helper()
	if _, err := e.store.Apply(context.Background(), &engine.PutImageSet{ImageSet: testImageSet()}); err != nil {
		t.Fatal(err)
	}
	body := map[string]any{"name": "rack7", "openshift_version": "4.17", "pull_secret": testPullSecret,
		"base_dns_domain": "example.com", "control_plane_count": masters,
		"machine_networks": []map[string]string{{"cidr": "10.77.0.0/24"}},
		"cluster_networks": []map[string]any{{"cidr": "10.128.0.0/14", "host_prefix": 23}},
		"service_networks": []map[string]string{{"cidr": "172.30.0.0/16"}},
		"ssh_public_key":   "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGbL9VvJ3+u4pqVBFhLvhZhvKQnMrVHu+g6L5h9m3N8c test@rack"}
	if masters > 1 {
		body["api_vips"] = []map[string]string{{"ip": "10.77.0.100"}}
		body["ingress_vips"] = []map[string]string{{"ip": "10.77.0.101"}}
	}
	rk := &rack{t: t, e: e}
	e.must(adminCred(), 201, "POST", "/clusters", body).decode(t, &rk.cluster)
	e.must(adminCred(), 201, "POST", "/infra-envs", map[string]any{"name": "rack7", "pull_secret": testPullSecret,
		"cluster_id": rk.cluster.ID}).decode(t, &rk.ie)
	for i := 1; i <= n; i++ {
		rk.add(i)
	}
	return rk
}

// add registers host i.
func (rk *rack) add(i int) *stepAgent {
	mac, cidr := fmt.Sprintf("52:54:00:77:00:%02x", i), fmt.Sprintf("10.77.0.%d/24", 10+i)
	id := fmt.Sprintf("52540000-7700-0001-0000-%012d", i)
	a := newStepAgent(rk.t, rk.e, rk.ie.ID, id, goldenInventory(rk.t, fmt.Sprintf("node-%d", i), mac, cidr))
	rk.agents = append(rk.agents, a)
	return a
}

// discover polls every agent until no steps are left (twice round, so the
// connectivity checks see every inventory).
func (rk *rack) discover() {
	rk.t.Helper()
	for range 3 {
		for _, a := range rk.agents {
			a.pollWith(rk.connectivity)
		}
	}
}

// connectivity answers a connectivity check: every listed NIC reached.
func (rk *rack) connectivity(args []string) (string, error) {
	var params models.ConnectivityCheckParams
	if err := json.Unmarshal([]byte(args[0]), &params); err != nil {
		return "", err
	}
	rep := models.ConnectivityReport{RemoteHosts: []*models.ConnectivityRemoteHost{}}
	for _, h := range params {
		rh := &models.ConnectivityRemoteHost{HostID: h.HostID, L2Connectivity: []*models.L2Connectivity{},
			L3Connectivity: []*models.L3Connectivity{}, MtuReport: []*models.MtuReport{}}
		for _, nic := range h.Nics {
			for _, ip := range nic.IPAddresses {
				addr := ip[:len(ip)-3]
				rh.L2Connectivity = append(rh.L2Connectivity, &models.L2Connectivity{RemoteIPAddress: addr, RemoteMac: nic.Mac,
					OutgoingNic: "eth0", Successful: true})
				rh.L3Connectivity = append(rh.L3Connectivity, &models.L3Connectivity{RemoteIPAddress: addr, OutgoingNic: "eth0",
					Successful: true, AverageRTTMs: 0.2})
			}
		}
		rep.RemoteHosts = append(rep.RemoteHosts, rh)
	}
	b, err := json.Marshal(rep)
	return string(b), err
}

// pollWith is poll with the connectivity check answered by conn.
func (a *stepAgent) pollWith(conn func(args []string) (string, error)) []*models.Step {
	a.t.Helper()
	var got models.Steps
	a.e.must(a.agent, 200, "GET", fmt.Sprintf("%s/instructions?timestamp=%d", a.path(), time.Now().Unix()), nil).decode(a.t, &got)
	r := steps.NewRunner(a.deps)
	for _, st := range got.Instructions {
		reply := models.StepReply{StepID: st.StepID, StepType: st.StepType}
		var err error
		switch st.StepType {
		case models.StepTypeConnectivityCheck:
			reply.Output, err = conn(st.Args)
		case models.StepTypeInstall:
			continue // the test drives the installation itself
		default:
			reply.Output, err = a.exec(r, st)
		}
		if err != nil {
			a.t.Fatalf("host %s: step %s: %v", a.id, st.StepType, err)
		}
		a.e.must(a.agent, 204, "POST", a.path()+"/instructions", reply)
	}
	return got.Instructions
}

// approveAll approves every host, with roles (nil: auto-assign).
func (rk *rack) approveAll(roles ...string) {
	rk.t.Helper()
	for i, a := range rk.agents {
		body := map[string]any{"approved": true}
		if i < len(roles) {
			body["host_role"] = roles[i]
		}
		rk.e.must(adminCred(), 201, "PATCH", a.path(), body)
	}
}

// get returns the cluster.
func (rk *rack) get() models.Cluster {
	rk.t.Helper()
	var c models.Cluster
	rk.e.must(adminCred(), 200, "GET", "/clusters/"+rk.cluster.ID, nil).decode(rk.t, &c)
	return c
}

// model returns the engine's cluster and hosts.
func (rk *rack) model() (engine.Cluster, []engine.Host) {
	var (
		c  engine.Cluster
		hs []engine.Host
	)
	rk.e.store.Read(func(m *engine.Model) {
		c, _ = m.Cluster(rk.cluster.ID)
		for h := range m.HostsOfCluster(rk.cluster.ID) {
			hs = append(hs, h)
		}
	})
	return c, hs
}
