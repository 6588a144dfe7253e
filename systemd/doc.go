// Package systemd holds rackbootd's systemd unit and its sysusers.d and
// tmpfiles.d snippets (rackbootd.service, rackboot-sysusers.conf,
// rackboot-tmpfiles.conf), which packaging/build-deb.sh installs. It has no
// Go code: its tests check the files with systemd's own offline tools.
package systemd
