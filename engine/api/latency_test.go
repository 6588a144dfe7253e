package api

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/engine/validation"
)

// A master whose connectivity report shows 250 ms to another master (and
// then 20 % packet loss) fails upstream's latency (packet-loss) validation
// and is no longer known; the cluster is not ready.
func TestConnectivityLimitsOfMasters(t *testing.T) {
	e := newMemEnv(t)
	rk := newRack(t, e, 3, 3)
	rk.discover()
	rk.approveAll("master", "master", "master")
	rk.discover()
	a := rk.agents[0]
	if h := a.host(); h.Status != models.HostStatusKnown {
		t.Fatalf("host 1 is %s (%s)", h.Status, h.StatusInfo)
	}
	report := func(rtt, loss float64) string {
		rep := models.ConnectivityReport{}
		for i, o := range rk.agents[1:] {
			ip := "10.77.0." + []string{"12", "13"}[i]
			l3 := &models.L3Connectivity{RemoteIPAddress: ip, OutgoingNic: "eth0", Successful: true, AverageRTTMs: 0.2}
			if i == 0 {
				l3.AverageRTTMs, l3.PacketLossPercentage = rtt, loss
			}
			rep.RemoteHosts = append(rep.RemoteHosts, &models.ConnectivityRemoteHost{HostID: o.id,
				L2Connectivity: []*models.L2Connectivity{{RemoteIPAddress: ip, RemoteMac: o.inv.Interfaces[0].MacAddress, OutgoingNic: "eth0", Successful: true}},
				L3Connectivity: []*models.L3Connectivity{l3},
				MtuReport:      []*models.MtuReport{{RemoteIPAddress: ip, OutgoingNic: "eth0", MtuSuccessful: true}}})
		}
		b, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	send := func(out string) models.APIHost {
		e.must(a.agent, 204, "POST", a.path()+"/instructions", models.StepReply{StepID: "connectivity-check-1",
			StepType: models.StepTypeConnectivityCheck, Output: out})
		return a.host()
	}

	h := send(report(250, 0))
	st, msg := validationOf(t, h, validation.HostSufficientNetworkLatency)
	if st != validation.StatusFailure || !strings.HasPrefix(msg, "A total network latency above the tolerated threshold of 100.00 ms was "+
		"encountered when performing network latency tests between host "+a.id+" and node-2 (250.00 ms)\n") {
		t.Errorf("latency %s %q", st, msg)
	}
	if h.Status != models.HostStatusInsufficient {
		t.Errorf("host 1 is %s (%s), want insufficient", h.Status, h.StatusInfo)
	}
	if c := rk.get(); c.Status == "ready" {
		t.Errorf("cluster ready with a slow master")
	}

	h = send(report(0.3, 20))
	if st, msg := validationOf(t, h, validation.HostSufficientNetworkLatency); st != validation.StatusSuccess {
		t.Errorf("latency after recovery %s %q", st, msg)
	}
	st, msg = validationOf(t, h, validation.HostSufficientPacketLoss)
	if st != validation.StatusFailure || !strings.Contains(msg, "packet loss above the tolerated threshold of 0.00% ") ||
		!strings.Contains(msg, "node-2 (20.00%)") {
		t.Errorf("packet loss %s %q", st, msg)
	}

	h = send(report(0.3, 0))
	if h.Status != models.HostStatusKnown {
		t.Errorf("host 1 with healthy peers is %s (%s), want known", h.Status, h.StatusInfo)
	}
}
