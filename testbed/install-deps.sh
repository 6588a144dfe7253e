#!/usr/bin/env bash
# Installs the Debian packages rackboot's build, tests, testbed and benchmarks
# need. Idempotent: packages already present are skipped without touching apt.
# Run as root on Debian 12 (bookworm).
set -euo pipefail

packages=(
	# build and packaging
	make git ca-certificates dpkg-dev fakeroot systemd
	# the testbed builds the real Ignition binary statically (cgo, libblkid)
	gcc libc6-dev libblkid-dev
	# the VM testbed (TESTBED.md)
	qemu-system-x86 ipxe-qemu ovmf ipxe busybox-static cpio iproute2
	# real clients for the protocol tests
	isc-dhcp-client curl tftp-hpa atftp strace
	# peers for the proxy-mode test and the benchmarks
	dnsmasq-base tftpd-hpa nginx-light kea-dhcp4-server kea-admin
	# NetworkManager loads the static-network keyfiles boot/nmstate writes
	network-manager
	# third-party Redfish clients that check the testbed BMC emulator
	redfishtool python3-sushy
	# disk images without mounting (installation issue)
	mtools dosfstools gdisk fdisk systemd-boot-efi
	# the testbed discovery ISO (hybrid BIOS isolinux + UEFI GRUB); also the
	# CoreOS-shaped live ISOs of boot/coreos/coreostest and the GRUB of the
	# testbed's CoreOS-shaped metal image (grub-mkstandalone for UEFI,
	# grub-mkimage and boot.img for BIOS: testbed/osimage)
	xorriso isolinux syslinux-common grub-efi-amd64-bin grub-common grub-pc-bin
	# the web console's browser tests (make e2e-console)
	chromium
	# CoreOS metal images in the agent's install tests: an ext4 boot file
	# system (mkfs.ext4 -d, debugfs) and .raw.xz/.raw.gz images
	e2fsprogs xz-utils gzip
	# promtool checks /metrics and the example alert rules (docs/metrics.md)
	prometheus
	# make e2e-systemd: a Debian root file system for a VM with systemd as PID 1
	debootstrap
)

missing=()
for p in "${packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done

if ((${#missing[@]})); then
	echo "install-deps: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q --no-install-recommends "${missing[@]}"
else
	echo "install-deps: all ${#packages[@]} packages present"
fi

# Debian starts these peers as services on install; rackboot's tests and
# benchmarks run their own instances inside network namespaces, so the
# system-wide ones must not hold ports 67/69. Only promtool of the
# prometheus package is used: its server need not run.
for svc in tftpd-hpa kea-dhcp4-server nginx prometheus; do
	if command -v systemctl >/dev/null && systemctl is-active --quiet "$svc" 2>/dev/null; then
		systemctl stop "$svc" || true
	fi
done

if ! command -v go >/dev/null && [ ! -x /usr/local/go/bin/go ]; then
	echo "install-deps: Go is missing: install Go 1.26 to /usr/local/go (https://go.dev/doc/install)" >&2
	exit 1
fi
