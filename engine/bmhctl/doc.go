// Package bmhctl is the BareMetalHost controller: upstream's Metal3
// baremetal-operator and Baremetal Agent Controller (BMAC) in one
// leader-only loop (run it under engine.WhileLeader).
//
// For each BareMetalHost with a BMC address, not detached:
//
//   - registering/available: read the power state (this checks the
//     credentials). When the BMH is online and labelled
//     infraenvs.agent-install.openshift.io=<infra-env>: a virtual-media
//     address gets the infra-env's discovery ISO URL (Images) inserted and
//     a one-time Cd boot, a redfish:// (PXE) address a one-time Pxe boot
//     (redfish-uefihttp:// UefiHttp); then the machine is powered on, or
//     reset when it was on. State: provisioning.
//   - any state, unpaired: a host of the labelled infra-env whose
//     inventory lists the BMH's bootMACAddress (case-insensitive) is paired
//     (engine.PairBareMetalHost): Host.BMHName, the annotations role,
//     hostname, installer-args, ignition-config-overrides,
//     machine-config-pool and agent labels copied, approved, and the
//     installation disk chosen by rootDeviceHints. State: provisioned.
//   - provisioned: once the paired host reports stage Rebooting (or later,
//     or is installed): eject the virtual media, one-time Hdd boot, reset;
//     then annotate baremetalhost.metal3.io/detached. State: detached.
//   - spec.online false (any state but detached): power off, once (the last
//     known power state says whether it is needed). State: available. When
//     it is online again it is booted into discovery anew; a host paired
//     meanwhile stays paired.
//
// Every PowerInterval (60 s, as Ironic's sync_power_state_interval) the
// power state of each BMH not being worked on, attached, with credentials,
// registered and not failing is read; a changed On or Off is stored (event
// bmh_power_state) and the BMH reconciled at once: online and off, it is
// booted again (into discovery, or from the disk once its host wrote it);
// offline and on, powered off. A BMC that does not answer is logged and
// changes nothing.
//
// Every BMC action is recorded as an event and as the BMH's last
// operation; events name the action and the image server's host, never an
// image URL (it holds a path token) or credentials. Credentials come from
// the Secret the BMH names, sealed with engine.Sealer; Options.Unseal opens
// them.
//
// Failures are classified with the bmc package's sentinels (bad
// credentials, unreachable, unsupported, BMC error) plus "config" (missing
// secret, unknown infra-env, bad annotation) into BMHStatus.ErrorType with
// an error count; the next attempt waits Backoff·2^(count-1), at most
// MaxBackoff, and is kept in the status (NextRetryAt) so a new leader
// honours it. A BMC that rejected the password is therefore asked again
// only at its backoff, never in a tight loop. Changing the BMH's BMC
// fields (or PATCH with retry) resets the count. Permanent errors stop the
// retries (Permanent): unsupported at once, bad credentials after
// MaxCredentialAttempts; the status message and event say "not retried
// until the BareMetalHost changes", and any change of the BMH clears it.
//
// The BMH's bootMode is the mode of every one-time boot;
// preprovisioningNetworkDataName becomes an NMState config the infra-env
// selects, with the boot MAC mapped (ensureNetwork), before the boot;
// automatedCleaningMode metadata makes the host's install step wipe its
// other disks (WipeDisks); Hardware is status.hardware from the paired
// agent's inventory.
package bmhctl
