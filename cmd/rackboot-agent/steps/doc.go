// Package steps runs the next-step instructions the service hands
// rackboot-agent and turns each into a StepReply with upstream's output
// shapes (engine/models): inventory, connectivity-check (ICMP echo, ARP
// table and a don't-fragment MTU probe), ntp-synchronizer (an SNTP query of
// every requested source, plus the appliance's clock as seen in its HTTP
// Date headers) and domain-resolution (the system resolver). Any other step
// type gets a reply with a non-zero exit code saying it is not supported.
//
// Every step runs under a timeout; an executor that overruns it is answered
// with ExitTimeout. Executors never send traffic anywhere but the addresses
// named in their arguments.
package steps
