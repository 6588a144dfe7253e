package installbed

import (
	"testing"
	"time"
)

func TestTimelineMarkdown(t *testing.T) {
	at := func(s int) time.Time {
		return time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC).Add(time.Duration(s) * time.Second)
	}
	tl := Timeline{Install: at(0), Installed: at(200), Hosts: []HostTimes{
		{Name: "master-0", StepSent: at(30), Writing: at(30), Rebooting: at(36), OSBoot: at(120), Done: at(150)},
		{Name: "worker-0", StepSent: at(31), Writing: at(33), Rebooting: at(40), Done: at(190)}, // console missed
	}}
	want := "| host | preparing | agent start | image streaming + disk write | reboot to OS | first boot | install → Done |\n" +
		"|---|---|---|---|---|---|---|\n" +
		"| master-0 | 30s | 0s | 6s | 1m24s | 30s | 2m30s |\n" +
		"| worker-0 | 31s | 2s | 7s | ? | ? | 3m10s |\n" +
		"\nInstall to installed: 3m20s (finalizing after the last Done: 10s).\n"
	if got := tl.Markdown(); got != want {
		t.Errorf("Markdown:\n%s\nwant:\n%s", got, want)
	}
	if (Timeline{}).Total() >= 0 {
		t.Error("the total of an empty timeline is not unknown")
	}
}

func TestIsInstalled(t *testing.T) {
	for msg, want := range map[string]bool{
		"Updated status of the cluster to installed":                             true,
		"Updated status of the cluster to installed (Cluster is installed)":      true,
		"Updated status of the cluster to installing (Installation in progress)": false,
		"Updated status of the cluster to installing-pending-user-action":        false,
	} {
		if isInstalled(msg) != want {
			t.Errorf("isInstalled(%q) = %t", msg, !want)
		}
	}
}
