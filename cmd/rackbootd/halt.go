package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/rackboot/rackboot/cluster"
)

// exitHalted is rackbootd's exit status when its state store stopped
// applying the raft log (cluster.ErrHalted): EX_CONFIG, which the unit's
// RestartPreventExitStatus keeps systemd from restarting into the same
// entry again and again.
const exitHalted = 78

// haltHint follows a halted store's error: what the operator does next.
const haltHint = `rackbootd stopped: its raft log holds an entry this rackbootd cannot apply, and it applies nothing after it.
If a newer rackboot wrote the entry, run that version. Otherwise remove the entry and those after it with
  rackbootd truncate-log --config FILE --from INDEX
while rackbootd is stopped (docs/operations.md, "A log entry that cannot be applied").`

// exitStatus is run's status for serve's error: exitHalted for a halted
// store (after the hint), else 1.
func exitStatus(err error, stderr io.Writer) int {
	if errors.Is(err, cluster.ErrHalted) {
		fmt.Fprintln(stderr, haltHint)
		return exitHalted
	}
	return 1
}

// truncateLog is `rackbootd truncate-log --config FILE --from INDEX`:
// remove the raft log entries from INDEX on, rackbootd being stopped.
func truncateLog(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("truncate-log", flag.ContinueOnError)
	flags.SetOutput(stderr)
	flags.Usage = func() { fmt.Fprint(stderr, usage) }
	path := flags.String("config", defaultConfigPath, "configuration file")
	from := flags.Uint64("from", 0, "the first log index to remove")
	if err := flags.Parse(args); err != nil || flags.NArg() > 0 || *from == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	ld, err := load(*path, false, nil)
	if err != nil {
		printError(stderr, err)
		return 1
	}
	got, err := cluster.TruncateLog(ld.cfg.Server.DataDir, *from)
	if err != nil {
		fmt.Fprintln(stderr, "rackbootd:", err)
		return 1
	}
	fmt.Fprintf(stdout, "removed raft log entries %d to %d from %s\n", got.From, got.To, ld.cfg.Server.DataDir)
	return 0
}
