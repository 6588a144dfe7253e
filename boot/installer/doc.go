// Package installer makes the Ignition configs that install a cluster's
// hosts.
//
// A Generator turns a Cluster into role configs (bootstrap, master, worker)
// and the files upstream offers under downloads/files (install-config.yaml,
// metadata.json) plus the credentials (kubeconfig, kubeadmin password):
//
//   - NewUserConfigs reads role configs the user supplies, as UPI users have
//     them (bootstrap.ign optional, master.ign, worker.ign), validated with
//     Ignition's parser;
//   - NewOpenShiftInstall writes InstallConfig's install-config.yaml (and the
//     cluster's custom manifests) into a fresh directory and runs a configured
//     openshift-install binary on it; docs/install-generators.md is its
//     contract.
//
// HostIgnition then builds one host's install config from its role config:
// /etc/hostname, the host's static network keyfiles, a first-boot unit
// (rackboot-firstboot.service) that reports the stage Done to rackboot with a
// host-scoped token kept in a root-only file, and the user's Ignition
// override merged last with Ignition's merge rules. Every config written is
// spec 3.5.0 (boot/ignition.Version), deterministic and validated with
// Ignition's own parser; role configs and overrides may be any spec 3.0–3.5.
//
// Errors wrap this package's sentinels (ErrInvalidOverride, ErrInvalidInput,
// ErrRoleConfig, ErrGenerator, ...). Secrets (the pull secret, first-boot
// tokens) never appear in error text or logs.
//
// The package is a leaf: it imports the standard library, coreos/ignition,
// gopkg.in/yaml.v3 and boot/ignition, never engine.
package installer
