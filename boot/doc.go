// Package boot decides what a booting machine gets. Profiles (kernel, initrd,
// kernel arguments, Ignition config, the MACs they are for) and host
// reservations (MAC → hostname) are checked once and frozen in an immutable
// Catalog; a Holder swaps catalogs atomically on reload while the HTTP
// handler and the DHCP server read it. Sub-packages build the per-host
// artifacts: ignition (config.ign), initrd (streamed initrd) and httpboot
// (the HTTP handler).
package boot
