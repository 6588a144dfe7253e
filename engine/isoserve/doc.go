// Package isoserve serves each infra-env's discovery ISO at a BMC-friendly
// URL and hands those URLs out (it implements bmhctl.Images).
//
// The URL is <boot base>/images/<infra-env id>/<path token>/discovery.iso:
// no query string, no redirect, ending in .iso, at most 255 characters
// (what BMCs accept). The path token is engine/auth's NewPathToken for the
// infra-env, with an expiry (Options.TTL), so the URL is a capability for
// that infra-env's image only; it is never logged.
//
// The image is built on the fly: the base ISO of the infra-env's image set
// (engine.ImageSet.BaseISO, the image set Model.BootImageSet picks) opened
// once and read in place, with its Ignition embed area overwritten by the
// infra-env's discovery config (boot/iso's overlay; the config comes from
// Options.Ignition, the boot selector). Only the embed area is held in
// memory; the last image of each infra-env is kept while its config is
// unchanged, so a BMC's many Range requests build it once. GET and HEAD
// with Range, If-Range and If-None-Match are answered by boot/iso.
package isoserve
