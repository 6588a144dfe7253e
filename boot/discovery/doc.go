// Package discovery builds the discovery Ignition config of an infra-env:
// the config every host booting that infra-env's discovery image applies
// so that rackboot-agent can register. Build takes a plain Input and
// returns deterministic Ignition JSON (spec 3.5.0, built with ignition/v2
// types, validated with Ignition's parser) holding:
//
//   - /etc/rackboot/agent.conf (0600): JSON AgentConfig — service URL,
//     infra-env id and the agent's token;
//   - /root/.docker/config.json (0600): the pull secret, as upstream
//     writes it for its agent;
//   - user core with the SSH authorized keys;
//   - proxy settings: /etc/profile.d/proxy.sh and a drop-in
//     rackboot-agent.service.d/10-proxy.conf (both 0600 when a proxy URL
//     carries credentials, else 0644);
//   - NTP sources: /etc/chrony.d/rackboot.conf ("server <host> iburst");
//   - static networking: boot/nmstate.ConvertHosts output under
//     /etc/assisted/network/host<i>/ (keyfiles and mac_interface.ini, 0600);
//   - with Input.Agent (a stock CoreOS live image, which has no agent):
//     rackboot-agent itself at /usr/local/bin/rackboot-agent (0755; on
//     CoreOS /usr/local is /var/usrlocal, writable under a read-only
//     /usr), fetched by Ignition from the appliance and checked against
//     verification.hash sha512-<hex> before it is written;
//   - rackboot-agent.service, enabled, running
//     "/usr/local/bin/rackboot-agent --config /etc/rackboot/agent.conf";
//   - the user's Ignition override (spec 3.0–3.5), merged last with
//     Ignition's merge rules, so it can replace any of the above.
//
// Every input is validated first (ErrInvalidInput, naming the field); an
// invalid override is ErrInvalidOverride carrying Ignition's message (the
// API returns it as 400). The result must fit MaxSize, by default
// DefaultMaxSize = 256 KiB: the Ignition embed area of a CoreOS live ISO
// (images/ignition.img), so that a discovery config served in an initrd
// also fits an ISO; larger is ErrTooLarge naming both sizes. The ISO writer
// still checks the compressed archive against the real area.
//
// Secrets (token, pull secret, proxy credentials, SSH keys) never appear
// in error text: errors name fields, and every error leaving Build is
// scrubbed of the secret values of its Input.
package discovery
