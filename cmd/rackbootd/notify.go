package main

import (
	"fmt"
	"log/slog"
	"strconv"
	"time"

	sd "github.com/coreos/go-systemd/v22/daemon"
	"golang.org/x/sys/unix"
)

// notifier tells systemd how the daemon is doing. Outside systemd
// (NOTIFY_SOCKET unset) every call does nothing.
type notifier struct {
	log *slog.Logger
}

func (n notifier) send(states ...string) {
	msg := ""
	for _, s := range states {
		msg += s + "\n"
	}
	if _, err := sd.SdNotify(false, msg); err != nil {
		n.log.Warn("sd_notify failed", "err", err)
	}
}

func (n notifier) ready(status string) { n.send(sd.SdNotifyReady, "STATUS="+status) }

func (n notifier) status(status string) { n.send("STATUS=" + status) }

func (n notifier) stopping() { n.send(sd.SdNotifyStopping, "STATUS=stopping") }

// reloading says a reload started; systemd (253 and later) wants the
// CLOCK_MONOTONIC time with it.
func (n notifier) reloading() {
	var ts unix.Timespec
	states := []string{sd.SdNotifyReloading, "STATUS=reloading"}
	if unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts) == nil {
		states = append(states, "MONOTONIC_USEC="+strconv.FormatInt(ts.Nano()/1000, 10))
	}
	n.send(states...)
}

// watchdogTicks ticks at half the interval systemd asks for (WatchdogSec=);
// the main loop answers each tick with WATCHDOG=1, so a stuck loop gets the
// daemon restarted. Without a watchdog the channel is nil (never ready).
func (n notifier) watchdogTicks() (<-chan time.Time, func()) {
	interval, err := sd.SdWatchdogEnabled(false)
	if err != nil {
		n.log.Warn("systemd watchdog settings are unusable", "err", err)
	}
	if interval <= 0 {
		return nil, func() {}
	}
	n.log.Debug("systemd watchdog enabled", "interval", interval.String())
	t := time.NewTicker(interval / 2)
	return t.C, t.Stop
}

func (n notifier) watchdog() { n.send(sd.SdNotifyWatchdog) }

// statusLine sums up what is running, for STATUS=.
func statusLine(d *daemon, prefix string) string {
	c := d.cfg
	s := fmt.Sprintf("%sdhcp %s", prefix, c.DHCP.Mode)
	if c.TFTP.Enabled {
		s += ", tftp " + c.TFTP.Listen
	}
	return s + fmt.Sprintf(", http %s; %d profiles, %d reservations", c.Server.HTTPListen, len(c.Profiles), len(c.DHCP.Reservations))
}
