// Package bootsel is the engine's answer to "what does this MAC boot?":
// Selector implements the boot server's httpboot.Chooser and the DHCP
// server's dhcp.Booter over an engine.Store, and Chain puts it ahead of a
// fallback (the daemon's profile catalog): the engine decides first, a
// MAC that a profile lists by name boots that profile rather than the
// default infra-env, and a MAC the engine does not claim falls back.
//
// Which infra-env a MAC boots, first match wins (Decide):
//
//  1. a registered host whose inventory lists the MAC: its infra-env, and
//     exit (boot from disk) when the host is installed,
//     added-to-existing-cluster, or its installation reached the stage
//     Rebooting or a later one (boot-order control);
//  2. a Reservation naming an infra-env (the daemon's DHCP reservations);
//  3. an NMState config listing the MAC that exactly one infra-env selects
//     with its static network selector;
//  4. the Labeler, the seam for upstream's BareMetalHost label
//     infraenvs.agent-install.openshift.io (not built yet);
//  5. the default infra-env;
//
// else an error wrapping boot.ErrNoBoot (404 script, no DHCP boot).
//
// What it boots: the boot profile (kernel, initrd, base command line) that
// the infra-env's image set names — the image set of its cluster, else the
// first of its CPU architecture, else Options.DefaultProfile — with the
// kernel arguments the discovery image needs added, and a config.ign that
// is boot/discovery.Build of the infra-env: agent.conf with the service
// URL, the infra-env id and an agent token signed by the key ring
// (engine.LoadKeyRing, shared with the API), pull secret, SSH key, proxy,
// NTP sources, the override, and the static networking of the NMState
// configs selected for this MAC; with the reservation's hostname merged in.
//
// Built configs are cached by what they are made of (infra-env, pull
// secret and NMState config revisions, hostname, signing key), so a boot
// storm builds and signs once per infra-env (and once per host with a
// hostname or static network), and any change to the infra-env builds
// anew. Run keeps a MAC index of hosts and NMState configs current from
// the store's change feed so that a lookup does not scan the model.
package bootsel
