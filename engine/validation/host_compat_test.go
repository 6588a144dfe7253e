package validation

import (
	"strings"
	"testing"

	"github.com/rackboot/rackboot/engine/models"
)

const (
	peer1 = "22222222-2222-2222-2222-222222222222"
	peer2 = "33333333-3333-3333-3333-333333333333"
)

// withPeers gives goodHost two peers (master-1 a master, worker-0 a
// worker) and an l3 report towards each.
func withPeers(rtt1, loss1, rtt2, loss2 float64) func(h *HostFacts) {
	return func(h *HostFacts) {
		h.Cluster.Peers = map[string]Peer{
			peer1: {Hostname: "master-1", Role: models.HostRoleMaster},
			peer2: {Hostname: "worker-0", Role: models.HostRoleWorker},
		}
		h.Connectivity = &models.ConnectivityReport{RemoteHosts: []*models.ConnectivityRemoteHost{
			{HostID: peer1, L3Connectivity: []*models.L3Connectivity{{RemoteIPAddress: "192.168.122.11", AverageRTTMs: rtt1, PacketLossPercentage: loss1, Successful: true}}},
			{HostID: peer2, L3Connectivity: []*models.L3Connectivity{{RemoteIPAddress: "192.168.122.12", AverageRTTMs: rtt2, PacketLossPercentage: loss2, Successful: true}}},
		}}
	}
}

func TestHostCompatValidations(t *testing.T) {
	noInv := func(h *HostFacts) { h.Inventory = nil }
	unbound := func(h *HostFacts) { h.Cluster = nil }
	sno := func(h *HostFacts) {
		h.Cluster.SingleNode, h.Cluster.UserManagedNetworking, h.Cluster.HostCount = true, true, 1
		h.Connectivity = nil
	}
	latencyFail := "A total network latency above the tolerated threshold of 100.00 ms was encountered when performing network latency tests between host 11111111-1111-1111-1111-111111111111 and master-1 (150.50 ms)\n" +
		"Actions:\n1: Please try the following commands on the host master-0 and examine averages to investigate the latency issue further\n\n" +
		"2: Please try the following commands on the host master-0 to investigate the packet loss further\n\nping -c 10 -W 3 -q -I eth0 192.168.122.10/24\n"
	lossFail := "A total packet loss above the tolerated threshold of 0.00% was encountered when performing connectivity validation between host 11111111-1111-1111-1111-111111111111 and master-1 (20.00%)\n" +
		"Actions:\n1: Check if there are multiple devices on the same L2 network, if so then use the built-in nmstate-based advanced networking configuration to create a bond or disable all but one of the interfaces.\n" +
		"2: Please try the following commands on the host master-0 to investigate the packet loss further\n\nping -c 10 -W 3 -q -I eth0 192.168.122.10/24\n"
	const (
		latOK  = "Network latency requirement has been satisfied."
		lossOK = "Packet loss requirement has been satisfied."
	)
	runHostCases(t, []hostCase{
		{"no attempt", nil, HostContainerImagesAvailable, StatusSuccess,
			"All required container images were either pulled successfully or no attempt was made to pull them"},

		{"not measured", nil, HostSufficientInstallationDiskSpeed, StatusSuccess, "Speed of installation disk has not yet been measured"},
		{"fast", func(h *HostFacts) { h.DiskSpeed = &DiskSpeed{Path: "/dev/sda", Tested: true, SpeedMs: 2} },
			HostSufficientInstallationDiskSpeed, StatusSuccess, "Speed of installation disk is sufficient"},
		{"slow", func(h *HostFacts) {
			h.DiskSpeed = &DiskSpeed{Path: "/dev/sda", Tested: true, ExitCode: 255, SpeedMs: 40}
		},
			HostSufficientInstallationDiskSpeed, StatusFailure,
			"While preparing the previous installation the installation disk speed measurement failed or was found to be insufficient"},

		{"fast peers", withPeers(0.4, 0, 0.5, 0), HostSufficientNetworkLatency, StatusSuccess, latOK},
		{"slow master peer", withPeers(150.5, 0, 0.5, 0), HostSufficientNetworkLatency, StatusFailure, latencyFail},
		{"slow worker peer of a master", withPeers(0.4, 0, 900, 0), HostSufficientNetworkLatency, StatusSuccess, latOK},
		{"worker within 1000 ms", func(h *HostFacts) { withPeers(0.4, 0, 900, 0)(h); h.Role = models.HostRoleWorker },
			HostSufficientNetworkLatency, StatusSuccess, latOK},
		{"no report yet", func(h *HostFacts) { withPeers(0, 0, 0, 0)(h); h.Connectivity = nil },
			HostSufficientNetworkLatency, StatusPending, "Missing network latency information."},
		{"no inventory", noInv, HostSufficientNetworkLatency, StatusPending, "The inventory is not available yet."},
		{"single node", sno, HostSufficientNetworkLatency, StatusSuccess, latOK},
		{"auto-assign without suggestion", func(h *HostFacts) { withPeers(150, 0, 0, 0)(h); h.Role = models.HostRoleAutoAssign },
			HostSufficientNetworkLatency, StatusSuccess, latOK},

		{"no loss", withPeers(0.4, 0, 0.5, 0), HostSufficientPacketLoss, StatusSuccess, lossOK},
		{"master peer loses 20%", withPeers(0.4, 20, 0.5, 0), HostSufficientPacketLoss, StatusFailure, lossFail},
		{"worker tolerates 10%", func(h *HostFacts) { withPeers(0.4, 0, 0.5, 10)(h); h.Role = models.HostRoleWorker },
			HostSufficientPacketLoss, StatusSuccess, lossOK},
		{"no report yet", func(h *HostFacts) { withPeers(0, 0, 0, 0)(h); h.Connectivity = nil },
			HostSufficientPacketLoss, StatusPending, "Missing packet loss information."},
		{"unreached address left to the majority group", func(h *HostFacts) {
			withPeers(0.4, 0, 0.5, 0)(h)
			r := h.Connectivity.RemoteHosts[0]
			r.L3Connectivity = append(r.L3Connectivity, &models.L3Connectivity{RemoteIPAddress: "10.9.9.9", PacketLossPercentage: 100})
		}, HostSufficientPacketLoss, StatusSuccess, lossOK},

		{"baremetal", nil, HostCompatibleWithClusterPlatform, StatusSuccess, "Host is compatible with cluster platform baremetal"},
		{"single node is none", sno, HostCompatibleWithClusterPlatform, StatusSuccess, "Host is compatible with cluster platform none"},
		{"no inventory", noInv, HostCompatibleWithClusterPlatform, StatusPending, "Missing inventory or platform isn't set"},
	})
	for _, id := range []ID{HostSufficientNetworkLatency, HostSufficientPacketLoss, HostCompatibleWithClusterPlatform, HostDiskEncryptionSatisfied} {
		h := goodHost()
		unbound(&h)
		if r, _ := ValidateHost(h, DefaultThresholds()).Get(id); !r.Hidden || !r.Passed() {
			t.Errorf("%s of an unbound host: %+v, want hidden success", id, r)
		}
	}
	if r, _ := ValidateHost(goodHost(), DefaultThresholds()).Get(HostDiskEncryptionSatisfied); !r.Hidden || !r.Passed() {
		t.Errorf("disk encryption without encryption configured: %+v, want hidden success as upstream", r)
	}
}

// Latency, packet loss and a failed disk speed check keep a host from
// known, as upstream's isSufficientForInstall.
func TestHostCompatBlocksKnown(t *testing.T) {
	for name, change := range map[string]func(h *HostFacts){
		"latency":     withPeers(150.5, 0, 0.5, 0),
		"packet loss": withPeers(0.4, 20, 0.5, 0),
		"disk speed":  func(h *HostFacts) { h.DiskSpeed = &DiskSpeed{Path: "/dev/sda", Tested: true, ExitCode: 255} },
	} {
		h := goodHost()
		change(&h)
		st, info, _ := HostStatus(models.HostStatusKnown, true, ValidateHost(h, DefaultThresholds()))
		if st != models.HostStatusInsufficient || !strings.HasPrefix(info, "Host cannot be installed due to following failing validation(s): ") {
			t.Errorf("%s: host %s (%s), want insufficient", name, st, info)
		}
	}
	h := goodHost()
	withPeers(0.4, 0, 0.5, 0)(&h)
	if st, info, _ := HostStatus(models.HostStatusInsufficient, true, ValidateHost(h, DefaultThresholds())); st != models.HostStatusKnown {
		t.Errorf("healthy peers: host %s (%s), want known", st, info)
	}
}
