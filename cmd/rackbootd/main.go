package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/rackboot/rackboot/cmd/rackbootd/internal/config"
)

// version is set at build time (-ldflags "-X main.version=...").
var version = "dev"

const usage = `usage:
  rackbootd [--config FILE]     run the daemon (default FILE: ` + config.DefaultPath + `)
  rackbootd check-config FILE   validate FILE without starting anything
  rackbootd truncate-log [--config FILE] --from INDEX
                                remove raft log entries from INDEX on (rackbootd stopped;
                                docs/operations.md)
  rackbootd restore [--config FILE] BACKUP
                                write a backup (rackbootctl backup) as the state of
                                the empty data_dir, daemon stopped
  rackbootd recover [--config FILE]
                                make this rack member the only voter of its rack,
                                keeping its state (its peers are lost for good),
                                daemon stopped
  rackbootd version             print the version
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// defaultConfigPath is the configuration file rackbootd reads by default.
const defaultConfigPath = config.DefaultPath

// run is main with its exit status returned: 0 success, 1 failure, 2 usage,
// 78 (exitHalted) a raft log entry it cannot apply.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "version":
			fmt.Fprintln(stdout, "rackbootd", version)
			return 0
		case "check-config":
			return checkConfig(args[1:], stdout, stderr)
		case "truncate-log":
			return truncateLog(args[1:], stdout, stderr)
		case "restore":
			return restore(args[1:], stdout, stderr) // backup.go
		case "recover":
			return recoverRack(args[1:], stdout, stderr) // backup.go
		}
	}
	flags := flag.NewFlagSet("rackbootd", flag.ContinueOnError)
	flags.SetOutput(stderr)
	flags.Usage = func() { fmt.Fprint(stderr, usage) }
	path := flags.String("config", config.DefaultPath, "configuration file")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	if flags.NArg() > 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	if err := serve(*path, stderr); err != nil {
		printError(stderr, err)
		return exitStatus(err, stderr)
	}
	return 0
}

// printError prints every configuration error on its own line, or err.
func printError(w io.Writer, err error) {
	var errs config.Errors
	if errors.As(err, &errs) {
		fmt.Fprintln(w, errs.Error())
		return
	}
	fmt.Fprintln(w, "rackbootd:", err)
}
