// Package steps runs the next-step instructions the service hands
// rackboot-agent and turns each into a StepReply with upstream's output
// shapes (engine/models): inventory, connectivity-check (ICMP echo, ARP
// table and a don't-fragment MTU probe), ntp-synchronizer (an SNTP query of
// every requested source, plus the appliance's clock as seen in its HTTP
// Date headers), domain-resolution (the system resolver),
// installation-disk-speed-check (upstream's fio check done in Go: 2300-byte
// writes with fdatasync over the start of the installation disk, refused
// on a disk in use; diskspeed.go) and install. Any
// other step type gets a reply with a non-zero exit code saying it is not
// supported.
//
// install (models.InstallStepArgs) reports Starting installation and
// Installing, downloads the host's Ignition and checks it parses before the
// disk is touched, streams the disk image to the boot device while hashing
// it (resuming a broken download with Range, reporting "Writing image to
// disk" with a percentage), checks its sha256, and finishes the CoreOS metal
// image just written as coreos-installer does: it finds the GPT partition
// named "boot" (ReadGPT: its own parser, no udev; an image without one is
// an install error), mounts it through a loop device and writes the config
// to ignition/config.ign, the kernel arguments to the BLS entries and the
// network keyfiles, then reports Rebooting. With coreos-installer in the
// live system it runs that instead (install_coreos.go). Its
// output (InstallResult) tells the agent whether to reboot. Any failure
// after the first byte was written zeroes the GPT at both ends of the disk,
// so a half-installed disk never boots; every failure is reported as stage
// Failed with the reason. The token and the Ignition's content never reach
// an error or a log line.
//
// Every step runs under a timeout; an executor that overruns it is answered
// with ExitTimeout. Executors never send traffic anywhere but the addresses
// named in their arguments.
package steps
