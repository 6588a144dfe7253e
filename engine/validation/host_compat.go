package validation

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rackboot/rackboot/engine/models"
)

// Host validations of upstream that look at the installation disk's
// measured speed, the latency and packet loss towards the cluster's other
// hosts, the cluster's platform, disk encryption and the release images.

// DiskSpeed is the outcome of the installation-disk-speed-check step on a
// host's installation disk.
type DiskSpeed struct {
	// Path is the disk measured.
	Path string `json:"path"`
	// Tested says the step ran on it (a reply came back).
	Tested bool `json:"tested"`
	// ExitCode is the step's: 0 when the disk was fast enough.
	ExitCode int64 `json:"exit_code"`
	// SpeedMs is the fdatasync duration the agent measured.
	SpeedMs int64 `json:"speed_ms,omitempty"`
}

// Peer is another host of the cluster as the connectivity validations
// name it.
type Peer struct {
	Hostname string
	Role     models.HostRole // effective role (requested or suggested)
}

// Upstream's connectivity limits of a role (its default host
// requirements); a single-node cluster has none.
const (
	MasterLatencyMs    = 100.0
	WorkerLatencyMs    = 1000.0
	MasterPacketLossPc = 0.0
	WorkerPacketLossPc = 10.0
	// DiskSpeedThresholdMs is the longest fdatasync of the installation
	// disk upstream accepts (etcd's need).
	DiskSpeedThresholdMs = 10
)

// maxTimingMetrics is how many peers a latency or packet-loss message names
// before "and others...".
const maxTimingMetrics = 5

// connectivityLimits returns the latency (ms) and packet loss (%) limits of
// role; ok is false when none applies.
func connectivityLimits(role models.HostRole) (latency, loss float64, ok bool) {
	switch role {
	case models.HostRoleMaster, models.HostRoleBootstrap:
		return MasterLatencyMs, MasterPacketLossPc, true
	case models.HostRoleWorker:
		return WorkerLatencyMs, WorkerPacketLossPc, true
	}
	return 0, 0, false
}

func checkContainerImages(h HostFacts, _ Thresholds) Result {
	// rackboot installs a disk image: no release image is pulled, so no
	// container-image-availability step is asked for and, as upstream
	// with no image statuses, the validation passes.
	return result(HostContainerImagesAvailable, StatusSuccess,
		"All required container images were either pulled successfully or no attempt was made to pull them")
}

func checkDiskSpeed(h HostFacts, _ Thresholds) Result {
	const id = HostSufficientInstallationDiskSpeed
	switch d := h.DiskSpeed; {
	case d == nil || !d.Tested:
		return result(id, StatusSuccess, "Speed of installation disk has not yet been measured")
	case d.ExitCode == 0:
		return result(id, StatusSuccess, "Speed of installation disk is sufficient")
	}
	return result(id, StatusFailure,
		"While preparing the previous installation the installation disk speed measurement failed or was found to be insufficient")
}

func checkLatency(h HostFacts, _ Thresholds) Result {
	return checkPeers(h, HostSufficientNetworkLatency, "Network latency requirement has been satisfied.",
		"Missing network latency information.", true)
}

func checkPacketLoss(h HostFacts, _ Thresholds) Result {
	return checkPeers(h, HostSufficientPacketLoss, "Packet loss requirement has been satisfied.",
		"Missing packet loss information.", false)
}

// checkPeers is the latency (latency true) or packet-loss validation: the
// host's l3 connectivity to the other hosts of its own role within the
// role's limit.
func checkPeers(h HostFacts, id ID, ok, missing string, latency bool) Result {
	if h.Inventory == nil {
		return result(id, StatusPending, "The inventory is not available yet.")
	}
	if h.Cluster == nil {
		return hidden(id, "")
	}
	role := h.EffectiveRole()
	maxRTT, maxLoss, limited := connectivityLimits(role)
	if h.Cluster.HostCount == 1 || h.Cluster.SingleNode || h.Cluster.Day2 || !limited {
		return result(id, StatusSuccess, "%s", ok)
	}
	if h.Connectivity == nil {
		return result(id, StatusPending, "%s", missing)
	}
	limit, unit := maxLoss, "%"
	if latency {
		limit, unit = maxRTT, " ms"
	}
	bad := exceeding(h, role, limit, unit, latency)
	if len(bad) == 0 {
		return result(id, StatusSuccess, "%s", ok)
	}
	what := "packet loss above the tolerated threshold of %.2f%% was encountered when performing connectivity validation"
	if latency {
		what = "network latency above the tolerated threshold of %.2f ms was encountered when performing network latency tests"
	}
	msg := fmt.Sprintf("A total "+what+" between host %s and %s\n", limit, h.ID, summarize(bad))
	return result(id, StatusFailure, "%s", msg+advice(h, latency))
}

// exceeding lists the peers of role whose l3 average RTT (latency) or
// packet loss is above limit, each address once, as "name (value unit)".
// An address never reached (successful false) is left to
// belongs-to-majority-group: upstream's agent reports it with no loss and
// no RTT, rackboot-agent with 100 % loss.
func exceeding(h HostFacts, role models.HostRole, limit float64, unit string, latency bool) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range h.Connectivity.RemoteHosts {
		if r == nil {
			continue
		}
		peer, known := h.Cluster.Peers[r.HostID]
		for _, l3 := range r.L3Connectivity {
			if l3 == nil || !l3.Successful || !known || peer.Role != role || seen[l3.RemoteIPAddress] {
				continue
			}
			v := l3.PacketLossPercentage
			if latency {
				v = l3.AverageRTTMs
			}
			if v <= limit {
				continue
			}
			seen[l3.RemoteIPAddress] = true
			out = append(out, fmt.Sprintf("%s (%.2f%s)", peer.Hostname, v, unit))
		}
	}
	return out
}

func summarize(metrics []string) string {
	if len(metrics) > maxTimingMetrics+1 {
		metrics = append(slices.Clone(metrics[:maxTimingMetrics+1]), metrics[maxTimingMetrics+1]+" and others...")
	}
	return strings.Join(metrics, ", ")
}

// advice is upstream's "Actions" text: ping commands to try on the host.
func advice(h HostFacts, latency bool) string {
	name := h.Hostname()
	var b strings.Builder
	if latency {
		fmt.Fprintf(&b, "Actions:\n1: Please try the following commands on the host %s and examine averages to investigate the latency issue further\n\n", name)
	} else {
		b.WriteString("Actions:\n1: Check if there are multiple devices on the same L2 network, if so then use the built-in nmstate-based advanced networking configuration to create a bond or disable all but one of the interfaces.\n")
	}
	fmt.Fprintf(&b, "2: Please try the following commands on the host %s to investigate the packet loss further\n\n", name)
	for _, nic := range h.Inventory.Interfaces {
		if nic == nil {
			continue
		}
		for _, a := range nic.IPV4Addresses {
			fmt.Fprintf(&b, "ping -c 10 -W 3 -q -I %s %s\n", nic.Name, a)
		}
	}
	return b.String()
}

func checkPlatform(h HostFacts, _ Thresholds) Result {
	const id = HostCompatibleWithClusterPlatform
	if h.Cluster == nil {
		return hidden(id, "")
	}
	// Upstream's default platform: none with user-managed networking
	// (single node), baremetal otherwise; both take any host.
	platform := "baremetal"
	if h.umn() {
		platform = "none"
	}
	if h.Inventory == nil && !h.Cluster.Day2 {
		return result(id, StatusPending, "Missing inventory or platform isn't set")
	}
	return result(id, StatusSuccess, "Host is compatible with cluster platform %s", platform)
}

func checkDiskEncryption(h HostFacts, _ Thresholds) Result {
	// A cluster without disk encryption (rackboot's clusters have no
	// disk_encryption setting, upstream's enable_on none) passes without
	// output, as upstream.
	return hidden(HostDiskEncryptionSatisfied, "")
}
