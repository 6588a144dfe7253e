package main

import (
	"fmt"
	"io"
)

// checkConfig is `rackbootd check-config FILE`: load the file and build the
// boot catalog (which validates the Ignition files) without starting
// anything.
func checkConfig(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	ld, err := load(args[0], false, nil)
	if err != nil {
		printError(stderr, err)
		return 1
	}
	for _, w := range ld.warnings {
		fmt.Fprintln(stderr, w)
	}
	fmt.Fprintln(stdout, "ok")
	return 0
}
