package installbed

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
	"github.com/rackboot/rackboot/engine/models"
)

// HostTimes is when one host passed each point of its installation: the
// install step handed to its agent, the disk write started (the agent
// streams the image and writes it as it comes), the write finished and the
// host rebooted, the installed OS printed its first line, and the first
// boot reported Done.
type HostTimes struct {
	Name                                       string
	StepSent, Writing, Rebooting, OSBoot, Done time.Time
}

// Timeline is an installation from the install action to installed.
type Timeline struct {
	Install, Installed time.Time
	Hosts              []HostTimes
}

// stageMessage is how rackbootd's events name a host's stage.
const stageMessage = ": reached installation stage "

// Collect builds the timeline of cluster id from rackbootd's events (their
// timestamps) and the consoles of vms (when RACKBOOT-OS-BOOT appeared,
// occurrence osBoot, counted from 0).
func Collect(ctx context.Context, c *client.Client, id string, vms []*VM, osBoot int) (Timeline, error) {
	var t Timeline
	evs, err := c.ListEvents(ctx, client.EventFilter{ClusterID: id})
	if err != nil {
		return t, err
	}
	hosts, err := HostsOf(ctx, c, id)
	if err != nil {
		return t, err
	}
	byID := map[string]*HostTimes{}
	for _, h := range hosts {
		t.Hosts = append(t.Hosts, HostTimes{Name: Hostname(h)})
	}
	for i, h := range hosts {
		byID[h.ID] = &t.Hosts[i]
	}
	for _, e := range evs {
		at := e.EventTime.Time()
		switch {
		case e.Name == "cluster_installation_started" && t.Install.IsZero():
			t.Install = at
		case e.Name == "cluster_status_updated" && isInstalled(e.Message) && t.Installed.IsZero():
			t.Installed = at
		}
		ht := byID[e.HostID]
		if ht == nil {
			continue
		}
		switch {
		case e.Name == "host_install_step_sent":
			first(&ht.StepSent, at)
		case strings.Contains(e.Message, stageMessage+string(models.HostStageWritingImageToDisk)):
			first(&ht.Writing, at)
		case strings.Contains(e.Message, stageMessage+string(models.HostStageRebooting)):
			first(&ht.Rebooting, at)
		case strings.Contains(e.Message, stageMessage+string(models.HostStageDone)):
			first(&ht.Done, at)
		}
	}
	for _, vm := range vms {
		for i := range t.Hosts {
			if t.Hosts[i].Name == vm.Node.Name {
				t.Hosts[i].OSBoot = vm.Seen(MarkerOSBoot, osBoot)
			}
		}
	}
	slices.SortFunc(t.Hosts, func(a, b HostTimes) int { return strings.Compare(a.Name, b.Name) })
	return t, nil
}

// isInstalled reports whether a cluster_status_updated message is the move
// to installed ("... to installed" or "... to installed (info)").
func isInstalled(msg string) bool {
	return strings.HasSuffix(msg, " to installed") || strings.Contains(msg, " to installed (")
}

// first sets *t to at unless it is set.
func first(t *time.Time, at time.Time) {
	if t.IsZero() {
		*t = at
	}
}

// Hostname is the host's requested hostname, else its inventory's, else
// its ID.
func Hostname(h *client.Host) string {
	if h.RequestedHostname != "" {
		return h.RequestedHostname
	}
	var inv models.Inventory
	if h.Inventory != "" && json.Unmarshal([]byte(h.Inventory), &inv) == nil && inv.Hostname != "" {
		return inv.Hostname
	}
	return h.ID
}

// Total is the time from the install action to installed.
func (t Timeline) Total() time.Duration { return span(t.Install, t.Installed) }

// unknown is the span of two points one of which is missing.
const unknown = time.Duration(-1)

// span is b-a rounded to seconds, or unknown when either is missing.
func span(a, b time.Time) time.Duration {
	if a.IsZero() || b.IsZero() {
		return unknown
	}
	return b.Sub(a).Round(time.Second)
}

// Markdown is a table with a row per host: how long each phase took.
// Phases: preparing (install action to install step sent: role Ignition
// generated, hosts told), agent start (step sent to the disk write), image
// streaming + disk write, reboot (Rebooting to the installed OS's first
// line, firmware and network boot falling through to the disk included),
// first boot (Ignition applied, Done reported) and finalizing (the last
// Done to installed).
func (t Timeline) Markdown() string {
	var b strings.Builder
	b.WriteString("| host | preparing | agent start | image streaming + disk write | reboot to OS | first boot | install → Done |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	var lastDone time.Time
	for _, h := range t.Hosts {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", h.Name, dur(span(t.Install, h.StepSent)),
			dur(span(h.StepSent, h.Writing)), dur(span(h.Writing, h.Rebooting)), dur(span(h.Rebooting, h.OSBoot)),
			dur(span(h.OSBoot, h.Done)), dur(span(t.Install, h.Done)))
		if h.Done.After(lastDone) {
			lastDone = h.Done
		}
	}
	fmt.Fprintf(&b, "\nInstall to installed: %s (finalizing after the last Done: %s).\n", dur(t.Total()), dur(span(lastDone, t.Installed)))
	return b.String()
}

func dur(d time.Duration) string {
	if d < 0 {
		return "?"
	}
	return d.String()
}
