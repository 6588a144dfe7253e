// Package agent is rackboot-agent's main loop: it derives the host id as
// upstream's agent does, registers the host with the service, polls for
// next-step instructions, runs them with package steps and posts the
// replies, exactly as openshift/assisted-installer-agent does.
//
// Unreachable services and unexpected answers are retried with capped
// exponential backoff with jitter; 401, 403, 404 and 409 stop the agent
// for good (Run returns an error wrapping ErrRefused). A post_step_action
// of "exit" makes the agent register again. A successful reply whose
// output is identical to the last one sent for its step type is not sent
// again within DedupeWindow (an hour), as upstream does.
//
// An install step runs after the other steps of its batch, alone. Once its
// successful reply is sent the agent reboots the machine (Reboot;
// SystemReboot in the binary) unless the step says a BMH controller resets
// it (external_reboot), in which case the agent keeps polling.
//
// Config comes from a JSON file written by the discovery image's Ignition,
// from flags, or from the environment; its token is never logged.
package agent
