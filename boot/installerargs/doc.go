// Package installerargs checks a host's installer_args: the
// coreos-installer flags a user may add to a host's installation (upstream's
// PATCH .../hosts/{id}/installer-args, an Agent's spec.installerArgs, a
// BareMetalHost's bmac.agent-install.openshift.io/installer-args
// annotation). The engine checks them when they are set and the agent
// again before it runs coreos-installer (or applies them itself), with the
// one table of this package.
package installerargs
