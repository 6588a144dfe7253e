// Package systemd holds rackbootd's systemd unit and its sysusers.d and
// tmpfiles.d snippets (rackbootd.service, rackboot-sysusers.conf,
// rackboot-tmpfiles.conf), and the drop-in a rack member holding the service
// address enables (rackbootd-rack.conf, shipped disabled as
// /usr/share/rackboot/systemd/rack.conf), which packaging/build-deb.sh
// installs. It has no Go code: its tests check the files with systemd's own
// offline tools.
package systemd
