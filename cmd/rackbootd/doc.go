// Command rackbootd is the rackboot network boot daemon. It loads the TOML
// configuration, opens the replicated state (a one-voter raft cluster under
// [server] data_dir/raft, package cluster), wires the DHCP (its leases kept
// in that state), TFTP and HTTP boot packages together with the discovery
// engine (the assisted-installer API on http_listen, the admin token under
// data_dir, the boot selector ahead of the profile catalog (bootsel.Chain), the host
// monitor (engine/hosts) on the raft leader), talks to systemd
// (sd_notify: READY, RELOADING, STATUS, WATCHDOG) and handles signals:
// SIGHUP reloads, SIGTERM and SIGINT stop gracefully. Nothing else.
//
//	rackbootd [--config FILE]        run every enabled service (default FILE: /etc/rackboot/rackboot.toml)
//	rackbootd check-config FILE      validate FILE and its boot profiles; print "ok" or every error
//	rackbootd version                print the version
//	rackbootd restore [--config FILE] BACKUP
//	                                 offline: write a backup as the state of the empty data_dir
//	rackbootd recover [--config FILE]
//	                                 offline: make this rack member its rack's only voter
//
// restore and recover wire packages engine/backup and cluster (Restore,
// Recover); docs/backup.md says when to use them.
package main
