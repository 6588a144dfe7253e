// Package ignition parses and validates the Ignition configs of boot
// profiles (any spec version 3.x up to 3.5, translated to 3.5 the way
// Ignition itself does) and builds each host's config.ign: the profile's
// config merged, with Ignition's own merge rules, with a per-host part that
// writes /etc/hostname.
package ignition
