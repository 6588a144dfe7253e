// Package fakesvc is a small in-memory stand-in for the assisted-service
// v2 agent API (register, instructions, step replies) for rackboot-agent's
// tests. It checks what a strict service checks — the X-Secret-Key token,
// the infra-env id, JSON bodies without unknown fields — records every
// request with its headers, and answers from queues the test fills.
package fakesvc
