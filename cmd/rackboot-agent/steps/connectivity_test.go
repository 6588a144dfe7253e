package steps

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/testbed/netns"
)

func checkConnectivity(t *testing.T, params models.ConnectivityCheckParams, run func(fn func() error) error) models.ConnectivityReport {
	t.Helper()
	arg, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	d := Deps{PingRounds: 2, PingWait: 500 * time.Millisecond}
	var out string
	err = run(func() error {
		var err error
		out, err = d.connectivity(context.Background(), []string{string(arg)})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var rep models.ConnectivityReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestConnectivityLoopback(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("ICMP sockets need root here")
	}
	rep := checkConnectivity(t, models.ConnectivityCheckParams{
		{HostID: "h1", Nics: []*models.ConnectivityCheckNic{{Mac: "00:00:00:00:00:00", IPAddresses: []string{"127.0.0.1/8"}}}},
	}, func(fn func() error) error { return fn() })
	if len(rep.RemoteHosts) != 1 {
		t.Fatalf("%+v", rep)
	}
	h := rep.RemoteHosts[0]
	l3 := h.L3Connectivity[0]
	if h.HostID != "h1" || !l3.Successful || l3.RemoteIPAddress != "127.0.0.1" || l3.OutgoingNic != "lo" || l3.PacketLossPercentage != 0 {
		t.Errorf("l3 %+v", *l3)
	}
	if len(h.MtuReport) != 1 || !h.MtuReport[0].MtuSuccessful || h.MtuReport[0].OutgoingNic != "lo" {
		t.Errorf("mtu %+v", h.MtuReport)
	}
	// Loopback has no ARP: the L2 check cannot succeed.
	if len(h.L2Connectivity) != 1 || h.L2Connectivity[0].Successful {
		t.Errorf("l2 %+v", h.L2Connectivity)
	}
}

// TestConnectivityInNamespaces runs the check inside a namespace whose
// bridge holds 192.0.2.1/24, with a peer namespace answering at 192.0.2.2;
// 192.0.2.77 is nobody.
func TestConnectivityInNamespaces(t *testing.T) {
	if err := netns.Available(); err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	agentNS, err := netns.New(ctx, "rba-conn")
	if err != nil {
		t.Fatal(err)
	}
	defer agentNS.Close()
	peerNS, err := netns.New(ctx, "rba-peer")
	if err != nil {
		t.Fatal(err)
	}
	defer peerNS.Close()
	if err := agentNS.AddBridge(ctx, "br0", "192.0.2.1/24"); err != nil {
		t.Fatal(err)
	}
	const peerMAC = "02:00:00:00:00:02"
	if err := agentNS.AddVethToBridge(ctx, "br0", peerNS, "eth0", "192.0.2.2/24", peerMAC); err != nil {
		t.Fatal(err)
	}
	rep := checkConnectivity(t, models.ConnectivityCheckParams{
		{HostID: "peer", Nics: []*models.ConnectivityCheckNic{{Mac: peerMAC, IPAddresses: []string{"192.0.2.2/24"}}}},
		{HostID: "ghost", Nics: []*models.ConnectivityCheckNic{{Mac: "02:00:00:00:00:77", IPAddresses: []string{"192.0.2.77"}}}},
		{HostID: "impostor", Nics: []*models.ConnectivityCheckNic{{Mac: "02:00:00:00:00:99", IPAddresses: []string{"192.0.2.2"}}}},
	}, agentNS.Do)
	peer, ghost, impostor := rep.RemoteHosts[0], rep.RemoteHosts[1], rep.RemoteHosts[2]
	if l3 := peer.L3Connectivity[0]; !l3.Successful || l3.OutgoingNic != "br0" || l3.AverageRTTMs <= 0 {
		t.Errorf("peer l3 %+v", *l3)
	}
	if l2 := peer.L2Connectivity[0]; !l2.Successful || l2.RemoteMac != peerMAC || l2.OutgoingNic != "br0" || l2.OutgoingIPAddress != "192.0.2.1" {
		t.Errorf("peer l2 %+v", *l2)
	}
	if len(peer.MtuReport) != 1 || !peer.MtuReport[0].MtuSuccessful {
		t.Errorf("peer mtu %+v", peer.MtuReport)
	}
	if l3 := ghost.L3Connectivity[0]; l3.Successful || l3.PacketLossPercentage != 100 {
		t.Errorf("ghost l3 %+v", *l3)
	}
	if l2 := ghost.L2Connectivity[0]; l2.Successful || l2.RemoteMac != "" {
		t.Errorf("ghost l2 %+v", *l2)
	}
	if len(ghost.MtuReport) != 0 {
		t.Errorf("ghost mtu %+v: no MTU report for an unreachable address", ghost.MtuReport)
	}
	// Reachable, but the MAC answering is not the NIC the service expects.
	if l2 := impostor.L2Connectivity[0]; l2.Successful || l2.RemoteMac != peerMAC {
		t.Errorf("impostor l2 %+v", *l2)
	}
}

func TestMTUProbeTooBig(t *testing.T) {
	if err := netns.Available(); err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a, err := netns.New(ctx, "rba-mtu")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := netns.New(ctx, "rba-mtup")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := a.AddBridge(ctx, "br0", "192.0.2.1/24"); err != nil {
		t.Fatal(err)
	}
	if err := a.AddVethToBridge(ctx, "br0", b, "eth0", "192.0.2.2/24", ""); err != nil {
		t.Fatal(err)
	}
	// The bridge claims 9000 but the peer's link takes 1500: jumbo echoes die.
	if err := a.IP(ctx, "link", "set", "br0", "mtu", "9000"); err != nil {
		t.Skipf("bridge MTU: %v", err)
	}
	rep := checkConnectivity(t, models.ConnectivityCheckParams{
		{HostID: "peer", Nics: []*models.ConnectivityCheckNic{{IPAddresses: []string{"192.0.2.2"}}}},
	}, a.Do)
	h := rep.RemoteHosts[0]
	if !h.L3Connectivity[0].Successful || len(h.MtuReport) != 1 || h.MtuReport[0].MtuSuccessful {
		t.Fatalf("l3 %+v mtu %+v: want reachable with a failed MTU probe", *h.L3Connectivity[0], h.MtuReport)
	}
}

func TestConnectivityLoopbackIPv6(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("ICMP sockets need root here")
	}
	if ln, err := net.Listen("tcp6", "[::1]:0"); err != nil {
		t.Skipf("no IPv6 loopback: %v", err)
	} else {
		ln.Close()
	}
	rep := checkConnectivity(t, models.ConnectivityCheckParams{
		{HostID: "h6", Nics: []*models.ConnectivityCheckNic{{IPAddresses: []string{"::1/128"}}}},
	}, func(fn func() error) error { return fn() })
	h := rep.RemoteHosts[0]
	if l3 := h.L3Connectivity[0]; !l3.Successful || l3.RemoteIPAddress != "::1" || l3.OutgoingNic != "lo" {
		t.Errorf("l3 %+v", *l3)
	}
	if len(h.L2Connectivity) != 0 {
		t.Errorf("l2 %+v: ARP is IPv4 only", h.L2Connectivity)
	}
	if len(h.MtuReport) != 1 || !h.MtuReport[0].MtuSuccessful {
		t.Errorf("mtu %+v", h.MtuReport)
	}
}
