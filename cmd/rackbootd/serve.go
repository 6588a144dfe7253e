package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// stopTimeout bounds a graceful stop; systemd's TimeoutStopSec is 30s.
const stopTimeout = 25 * time.Second

// serve runs the daemon until SIGTERM or SIGINT (nil) or a service fails.
func serve(path string, stderr io.Writer) error {
	// Before anything else, so that an early SIGHUP does not kill us.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sigs)

	ld, err := load(path, true, savedOSImages)
	if err != nil {
		notifier{log: slog.New(slog.DiscardHandler)}.status("configuration invalid: " + firstLine(err))
		return err
	}
	level := new(slog.LevelVar)
	level.Set(ld.cfg.Server.LogLevel)
	log := newLogger(stderr, ld.cfg.Server.LogFormat, level)
	for _, w := range ld.warnings {
		log.Warn(w)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d, err := newDaemon(ctx, ld, log, level)
	if err != nil {
		notifier{log: log}.status("start failed: " + firstLine(err))
		return err
	}
	errc := d.start(ctx)
	d.notify.ready(statusLine(d, "serving: "))
	log.Info("rackbootd started", "version", version, "config", path, "dhcp", string(d.cfg.DHCP.Mode),
		"tftp", d.cfg.TFTP.Enabled, "http", d.cfg.Server.HTTPListen, "base_url", d.cfg.BaseURL())
	runErr := d.loop(path, sigs, errc)
	d.notify.stopping()
	stopCtx, stop := context.WithTimeout(context.Background(), stopTimeout)
	defer stop()
	return errors.Join(runErr, d.stop(stopCtx, cancel))
}

// loop reloads on SIGHUP and returns on SIGTERM or SIGINT (nil) or when a
// service ends (its error).
func (d *daemon) loop(path string, sigs <-chan os.Signal, errc <-chan error) error {
	ticks, stop := d.notify.watchdogTicks()
	defer stop()
	d.notify.watchdog()
	for {
		select {
		case <-ticks:
			d.notify.watchdog()
		case <-d.osImagesChanged:
			d.reload(path)
		case sig := <-sigs:
			if sig == syscall.SIGHUP {
				d.reload(path)
				continue
			}
			d.log.Info("stopping", "signal", sig.String())
			return nil
		case err := <-errc:
			if err == nil {
				err = errServiceEnded
			}
			d.log.Error("a service failed; stopping", "err", err)
			return err
		}
	}
}
