# rackboot — build, test and package targets. See README.md.
GO        ?= go
BIN       := bin
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -s -w -X main.version=$(VERSION)
export CGO_ENABLED := 0

CMDS := rackbootd rackbootctl rackboot-agent
# rackboot-agent for each architecture a CoreOS image set may boot:
# bin/agent/<goarch>/rackboot-agent, served to stock live images
# ([server] agent_dir, docs/coreos.md).
AGENT_ARCHS := amd64 arm64

.PHONY: all build test e2e e2e-console e2e-boot e2e-agent e2e-discovery e2e-parts e2e-install e2e-full e2e-bmc e2e-ha e2e-systemd bench bench-diskimage bench-rootfs bench-xz bench-kube bench-ha bench-agents bench-agents-rack package deps check fuzz vet demo clean

all: build

build:
	@mkdir -p $(BIN)
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/ $(patsubst %/main.go,./%,$(wildcard $(addsuffix /main.go,$(addprefix cmd/,$(CMDS)))))
	for a in $(AGENT_ARCHS); do \
		GOOS=linux GOARCH=$$a $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/agent/$$a/rackboot-agent ./cmd/rackboot-agent || exit 1; \
	done

vet:
	$(GO) vet ./...

# Unit tests, loopback protocol tests, and (as root) the network-namespace tests.
test: vet
	$(GO) test -count=1 ./...

# End-to-end boots of QEMU VMs (root, TCG). RACKBOOT_E2E=1 turns missing
# prerequisites into failures instead of skips.
e2e: e2e-boot e2e-agent e2e-discovery e2e-parts e2e-install e2e-full e2e-bmc e2e-ha e2e-console

e2e-boot: build
	RACKBOOT_E2E=1 $(GO) test -count=1 -timeout 40m -v -skip 'Discovery|Install|BMC|HA' ./testbed/e2e/...

# Installation: a single-node cluster from power-on to installed (then one
# more reboot from disk), and an install refused while the cluster is not ready.
e2e-install: build
	RACKBOOT_E2E=1 $(GO) test -count=1 -timeout 30m -v -run 'TestInstallSNO|TestInstallRefusedWhenNotReady' ./testbed/e2e/

# Issue 10's end-to-end kubectl flow on one appliance: kubectl apply -f of
# the ZTP kinds (Secret, ClusterImageSet, ClusterDeployment,
# AgentClusterInstall for 3 control-plane hosts and a worker, InfraEnv,
# NMStateConfigs), 4 VMs network-boot the InfraEnv's image, their Agents
# approved with kubectl patch, the install starting by itself, kubectl wait
# --for=condition=Completed, the admin kubeconfig Secret, then a day-2
# worker through the REST API and kubectl delete -f through the finalizers.
e2e-full: build
	RACKBOOT_E2E=1 $(GO) test -count=1 -timeout 45m -v -run 'TestInstallFull' ./testbed/e2e/

# BareMetalHosts driven through the testbed's Redfish BMC emulator: one VM
# boots the discovery ISO from virtual media, one boot-once PXE; both install.
e2e-bmc: build
	RACKBOOT_E2E=1 $(GO) test -count=1 -timeout 40m -v -run 'TestBMC' ./testbed/e2e/

# High availability: three rackbootd appliances in their own namespaces
# (kill -9, cut-off, restart, membership, porcupine), a VM registering
# while the leader is killed, and the kubectl end-to-end flow of a
# single-node cluster through a follower, whose kubectl get agents -w
# outlives the leader killed during the install.
e2e-ha: build
	RACKBOOT_E2E=1 $(GO) test -count=1 -timeout 40m -v ./testbed/ha/...
	RACKBOOT_E2E=1 $(GO) test -count=1 -timeout 30m -v -run 'TestHA' ./testbed/e2e/

# The package under the real systemd: a Debian VM (debootstrap from the
# apt mirror, cached in .cache/testbed/systemd-vm) with systemd as PID 1
# installs the package make package builds, then enable --now, reload, watchdog,
# journal fields, upgrade, the rack drop-in, remove and purge
# (docs/systemd.md). Not part of check: see docs/systemd.md for its time.
e2e-systemd: build
	deb=$$(./packaging/build-deb.sh $(VERSION)) && \
	RACKBOOT_E2E_SYSTEMD=1 RACKBOOT_DEB=$$(realpath $$deb) $(GO) test -count=1 -timeout 60m -v -run TestPackageUnderSystemd ./testbed/systemdvm/

# Discovery: VMs boot the testbed's CoreOS-shaped live image set (coreos_stream),
# register, are validated and approved.
e2e-discovery: build
	RACKBOOT_E2E=1 $(GO) test -count=1 -timeout 30m -v -run Discovery ./testbed/e2e/...

# The testbed's parts against real QEMU and real tools: the static Ignition
# binary applies a config, the discovery ISO overlay boots, the installable
# OS image boots from disk under OVMF (first boot once), and rackboot's
# Redfish driver drives the BMC emulator in front of a VM, and the install
# Ignition of boot/installer applied by the real Ignition binary, and a CoreOS
# discovery config's remote rackboot-agent fetched and verified by it, and the
# CoreOS-shaped live ISO booting from a CD under SeaBIOS and OVMF.
e2e-parts:
	RACKBOOT_E2E=1 $(GO) test -count=1 -timeout 30m -v -run 'TestIgnitionAppliesConfig|TestE2EBootOverlayISO|TestQEMUWithRackbootDriver|TestRealIgnitionAppliesHostConfig|TestRealIgnitionFetchesTheAgent|TestFirstBootUnderOVMF|TestFirstBootUnderSeaBIOS|TestFailedFirstBootRunsAgain|TestNetworkThenDiskFallsThrough|TestDiskThenNetworkBootsDisk|TestIPXEExitScriptFallsThroughToDisk|TestE2ELiveISOBootsFromCD' ./testbed/image ./testbed/isoimage ./testbed/redfish ./boot/installer ./boot/discovery ./testbed/osimage ./testbed/coreosimage

# The agent's inventory collector inside SeaBIOS and OVMF VMs, and its
# install step writing a VM's virtio disk.
e2e-agent:
	RACKBOOT_E2E=1 $(GO) test -count=1 -timeout 20m -v -run InQEMU ./cmd/rackboot-agent/inventory/ ./cmd/rackboot-agent/steps/

# The web console (engine/console) in Debian's headless chromium, driven by
# chromedp: sign-in, live hosts table, approve, install with progress, and
# markup in hostnames shown as text. SHOTS=docs/console rewrites the
# screenshots of docs/console.md.
e2e-console:
	RACKBOOT_E2E_CONSOLE=1 $(GO) test -count=1 -timeout 5m -v -run 'TestConsoleBrowser' ./engine/console/ $(if $(SHOTS),-args -screenshots=$(abspath $(SHOTS)))

# What CI runs (via .ci/run) and what README.md tells a newcomer to run.
check: test e2e

deps:
	./testbed/install-deps.sh

# Runs every fuzz target (go test -fuzz) for FUZZTIME each. The seed corpora
# under testdata/fuzz also run as plain tests in `make test`.
FUZZTIME ?= 10s
fuzz:
	@set -e; for f in $$(grep -rl --include='*_test.go' '^func Fuzz' .); do \
		pkg=$$(dirname $$f); \
		for t in $$(grep -o '^func Fuzz[A-Za-z0-9_]*' $$f | cut -d' ' -f2); do \
			echo "fuzz $$pkg $$t"; \
			$(GO) test -run '^$$' -fuzz "^$$t\$$" -fuzztime $(FUZZTIME) $$pkg; \
		done; \
	done

bench: build
	./bench/run.sh

# 10,000 simulated agents against one rackbootd (register, inventory, steady
# polling); writes bench/agents/last.md, which make bench appends to the docs.
# One rackbootd serving a disk image to 50 installing hosts at once, against
# nginx serving the same file (writes bench/diskimage/last.md).
bench-diskimage: build
	./bench/run.sh diskimage

# The live rootfs of a CoreOS image set (live_iso + live_rootfs) to 50
# booting hosts at once, fetched from the URL their iPXE script names,
# against nginx serving the same file (as root; writes
# bench/diskimage/last-rootfs.md). Not run by CI.
bench-rootfs: build
	./bench/run.sh diskimage -route rootfs -out bench/diskimage/last-rootfs.md

# Three appliances against one: replicated writes, DHCP against Kea, and
# failover over 20 leader kills (as root; writes bench/ha/last.md).
bench-ha: build
	$(GO) run ./bench/ha -out bench/ha/last.md

bench-agents: build
	$(GO) run ./bench/agents -hosts 10000 -poll 3m -out bench/agents/last.md

# The registration storm on a rack of three appliances against a rack of one
# (testbed/ha namespaces, as root; each appliance first with half a CPU of its
# own, then all sharing the machine's; writes bench/agents/last-rack.md).
bench-agents-rack: build
	$(GO) run ./bench/agents -rack 3 -hosts 10000 -out bench/agents/last-rack.md

# Installing a .raw.xz metal image: rackboot-agent's install step against
# xz -dc | dd onto the same loop device (as root; writes
# bench/xzinstall/last.md). Not run by CI.
bench-xz:
	$(GO) run ./bench/xzinstall -command "make bench-xz" -out bench/xzinstall/last.md

# 10,000 Agents through the Kubernetes-compatible API: kubectl get agents -A,
# 100 watchers, RSS (writes bench/agents/last-kube.md). Not run by CI.
bench-kube: build
	$(GO) run ./bench/agents -kube -hosts 10000 -out bench/agents/last-kube.md

package: build
	./packaging/build-deb.sh $(VERSION)

clean:
	rm -rf $(BIN) dist

# The main job, on one machine: rackbootd in a private namespace, a cluster
# of three control-plane VMs and a worker (DEMO=sno: one node) network-booted,
# approved and installed with live progress bars (docs/demo.md).
demo: deps build
	$(GO) run ./testbed/cmd/demo
