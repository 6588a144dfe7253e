// Command xzinstall is the .raw.xz install benchmark of issue 11
// (make bench-xz, as root): it writes a CoreOS-shaped metal image (GPT
// with BIOS-BOOT, EFI-SYSTEM, an ext4 boot with a BLS entry, and a root
// holding real files from this machine's /usr, so it compresses as an OS
// does), compresses it with xz, and installs it onto the same loop device
// (or file) in turns:
//
//   - rackboot-agent's install step (cmd/rackboot-agent/steps), run
//     through steps.Runner as the agent runs it: the image streamed over
//     HTTP from loopback, its sha256 checked, decompressed by the system's
//     xz (Deps.XZ "", what a CoreOS live image has) and, as a second row,
//     by the pure-Go decoder (Deps.XZ "none"); then the Ignition placed on
//     the boot file system;
//   - `xz -dc FILE | dd of=TARGET bs=1M conv=fsync`, the peer, reading
//     the local file;
//   - `curl URL | xz -dc | dd ...`, the same through HTTP.
//
// Each writes the whole image and syncs; the rate is raw bytes written
// per second of wall time. Every run is checked: the target then holds
// the raw image (outside the boot partition, which the agent edits).
// The report is a markdown section written to -out.
package main
