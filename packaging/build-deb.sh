#!/bin/sh
# build-deb.sh VERSION: package the binaries in bin/ as dist/rackboot_<version>_<arch>.deb.
#
# Called by `make package` after `make build`. VERSION is what `git describe`
# gives ("v1.2.0", "v1.2.0-3-gabc1234", "fcac8c7-dirty"); it is turned into a
# Debian version ("1.2.0", "1.2.0+3+gabc1234", "0.0+gitfcac8c7+dirty").
# BIN and DIST override where the binaries are read and the package written.
set -eu

usage() { echo "usage: $0 VERSION" >&2; exit 2; }
[ $# -eq 1 ] && [ -n "$1" ] || usage

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
bin=${BIN:-$top/bin}
dist=${DIST:-$top/dist}

version=$("$here/debian-version.sh" "$1")
arch=$(dpkg --print-architecture)
[ -x "$bin/rackbootd" ] || { echo "$0: $bin/rackbootd is missing: run make build first" >&2; exit 1; }

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT INT TERM
root=$stage/root

for cmd in rackbootd rackbootctl rackboot-agent; do
	if [ -x "$bin/$cmd" ]; then
		install -D -m 0755 "$bin/$cmd" "$root/usr/bin/$cmd"
	fi
done
# rackboot-agent per architecture, fetched by stock CoreOS live images
# (server.agent_dir, docs/coreos.md).
for a in amd64 arm64; do
	if [ -x "$bin/agent/$a/rackboot-agent" ]; then
		install -D -m 0755 "$bin/agent/$a/rackboot-agent" "$root/usr/lib/rackboot/agent/$a/rackboot-agent"
	fi
done
install -D -m 0644 "$top/systemd/rackbootd.service" "$root/lib/systemd/system/rackbootd.service"
install -D -m 0644 "$top/systemd/rackboot-sysusers.conf" "$root/usr/lib/sysusers.d/rackboot.conf"
install -D -m 0644 "$top/systemd/rackboot-tmpfiles.conf" "$root/usr/lib/tmpfiles.d/rackboot.conf"
install -D -m 0644 "$here/rackboot.toml" "$root/etc/rackboot/rackboot.toml"
install -D -m 0644 "$top/docs/config.md" "$root/usr/share/doc/rackboot/config.md"
if [ -f "$top/README.md" ]; then
	install -D -m 0644 "$top/README.md" "$root/usr/share/doc/rackboot/README.md"
fi

mkdir -p "$root/DEBIAN"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat >"$root/DEBIAN/control" <<CONTROL
Package: rackboot
Version: $version
Architecture: $arch
Maintainer: rackboot developers <rackboot@localhost>
Installed-Size: $size
Depends: ipxe
Section: net
Priority: optional
Description: rack-local network boot appliance
 rackbootd answers DHCP (full or proxy mode), PXE, iPXE and UEFI HTTP boot,
 and serves TFTP and HTTP boot artifacts: each host gets a kernel and an
 initrd that ends with its own Ignition config.
 .
 Edit /etc/rackboot/rackboot.toml, check it with
 "rackbootd check-config /etc/rackboot/rackboot.toml", then run
 "systemctl enable --now rackbootd".
CONTROL
echo /etc/rackboot/rackboot.toml >"$root/DEBIAN/conffiles"
for script in postinst prerm postrm; do
	install -m 0755 "$here/$script" "$root/DEBIAN/$script"
done

mkdir -p "$dist"
out=$dist/rackboot_${version}_$arch.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$out" >/dev/null
echo "$out"
