package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/rackboot/rackboot/testbed/redfish"
)

type vmFlags []vmSpec

func (f *vmFlags) String() string { return fmt.Sprint(len(*f), " VMs") }

func (f *vmFlags) Set(s string) error {
	v, err := parseVM(s)
	if err != nil {
		return err
	}
	*f = append(*f, v)
	return nil
}

type options struct {
	listen, user, passwordFile, dir string
	maxImage                        int64
	vms                             vmFlags
}

func main() {
	var o options
	flag.StringVar(&o.listen, "listen", "127.0.0.1:8443", "address for HTTPS (port 0: any)")
	flag.StringVar(&o.user, "user", "admin", "Basic auth user name")
	flag.StringVar(&o.passwordFile, "password-file", "", "file holding the password (else $RACKBOOT_BMC_PASSWORD)")
	flag.StringVar(&o.dir, "dir", "", "directory for VM files and downloaded media (required)")
	flag.Int64Var(&o.maxImage, "max-image", redfish.DefaultMaxImage, "largest virtual media image, bytes")
	flag.Var(&o.vms, "vm", "a VM: id=,mac=,tap=[,firmware=bios|uefi][,disk=][,memory=MiB] (repeatable)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := run(ctx, log, o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "redfish-bmc:", err)
		os.Exit(1)
	}
}

func password(file string) (string, error) {
	if file == "" {
		if p := os.Getenv("RACKBOOT_BMC_PASSWORD"); p != "" {
			return p, nil
		}
		return "", errors.New("no password: give -password-file or set RACKBOOT_BMC_PASSWORD")
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("password: %w", err)
	}
	p := strings.TrimRight(string(b), "\r\n")
	if p == "" {
		return "", errors.New("password: the file is empty")
	}
	return p, nil
}

// run serves until ctx ends; it writes the "listening on" line to out.
func run(ctx context.Context, log *slog.Logger, o options, out io.Writer) error {
	if o.dir == "" || len(o.vms) == 0 {
		return errors.New("-dir and at least one -vm are required")
	}
	pass, err := password(o.passwordFile)
	if err != nil {
		return err
	}
	media := filepath.Join(o.dir, "media")
	if err := os.MkdirAll(media, 0o700); err != nil {
		return err
	}
	var systems []redfish.System
	for _, v := range o.vms {
		if err := os.MkdirAll(filepath.Join(o.dir, v.ID), 0o700); err != nil {
			return err
		}
		sys, m, err := v.system(o.dir)
		if err != nil {
			return err
		}
		defer m.Close()
		systems = append(systems, sys)
	}
	svc, err := redfish.New(redfish.Config{Username: o.user, Password: pass, MediaDir: media,
		MaxImage: o.maxImage, Logger: log}, systems...)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "listening on https://%s\n", ln.Addr())
	return svc.Serve(ctx, ln)
}
