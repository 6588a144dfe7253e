// Package console serves rackbootd's web console under /console/ on the
// same origin as the REST API: sign-in with the admin token, an overview
// of the rack, infra-envs, a live hosts table, host pages, clusters and
// BareMetalHosts, with the actions an operator takes (approve, role,
// hostname, installation disk, install, cancel, reset, power).
//
// The console is a front door, like engine/api, and holds no domain rule:
// every read and every change is a request to the API handler it is given,
// in process, with the admin token (so a change is validated, recorded and
// evented exactly as it would be through rackbootctl), and a refused change
// shows the API's own error text. The store is used only to follow its
// change feed: /console/live is a Server-Sent Events stream that tells the
// page something changed (coalesced, at most once a second), and
// static/app.js then fetches the page again and swaps its live regions.
//
// Pages are html/template (contextual auto-escaping: host names, event
// texts and other untrusted strings are inert), assets are embedded
// (embed.FS), and every answer carries a Content-Security-Policy that
// allows nothing outside the appliance and forbids framing. A session is
// an opaque random cookie (HttpOnly, SameSite=Strict, Secure under TLS)
// kept in memory on this appliance; every change carries the session's
// CSRF token; wrong tokens are refused and rate-limited per client
// address.
package console
