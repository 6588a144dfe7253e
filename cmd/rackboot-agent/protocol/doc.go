// Package protocol is rackboot-agent's HTTP client for the assisted-service
// v2 agent API: host registration, next-step instructions and step replies,
// spoken exactly as openshift/assisted-installer-agent speaks them, plus
// the install step's calls: the host's install Ignition (only ever fetched
// from the service's own origin) and progress reports (PUT .../progress,
// expecting 200).
//
// Every request carries Accept: application/json, the discovery_agent_version
// header (Go sends it as Discovery_agent_version), a fresh X-Request-Id and
// X-Secret-Key with the infra-env token. Status codes are exact: register
// expects 201, instructions 200, a step reply 204; anything else is an error.
// 401, 403, 404 and 409 are permanent (IsPermanent reports them): the agent
// must stop rather than retry.
//
// The token never appears in an error or a log line: it is only ever put in
// the X-Secret-Key header, and any text taken from a response is redacted
// before it is returned.
package protocol
