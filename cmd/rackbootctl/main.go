package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/rackboot/rackboot/cmd/rackbootctl/cli"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], cli.Env{
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		Getenv: os.Getenv, Version: version,
	})
	stop()
	os.Exit(code)
}
