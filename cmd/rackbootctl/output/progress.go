package output

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
	"github.com/rackboot/rackboot/engine/models"
)

// BarWidth is the number of cells of a progress bar.
const BarWidth = 24

// Bar cells: done and to do.
const (
	barDone = "█"
	barTodo = "░"
)

// installStages is the order of the stages of a host that installs an
// image (the contract in engine/models/install.go), used when the host
// does not list its own (progress_stages).
var installStages = []models.HostStage{
	models.HostStageStartingInstallation, models.HostStageInstalling, models.HostStageWritingImageToDisk,
	models.HostStageRebooting, models.HostStageConfiguring, models.HostStageJoined, models.HostStageDone,
}

// Progress is the table of hosts as installation progress: one line per
// host with its name, role, status, stage and a bar with the percentage.
// Hosts that are not installing show no bar.
func Progress(hs []*client.Host) Table {
	t := Table{Header: []string{"HOST", "ROLE", "STATUS", "STAGE", "PROGRESS"}}
	for _, h := range hs {
		name := Hostname(h)
		if name == "" {
			name = h.ID
		}
		r := role(h)
		if h.Bootstrap {
			r += ",bootstrap"
		}
		t.add(h.ID, []string{name, r, h.Status, progressStage(h.Progress), progressBar(h)})
	}
	return t
}

// progressStage is the stage, with its progress info (a percentage of
// the disk write, or why it failed).
func progressStage(p *models.HostProgressInfo) string {
	if p == nil || p.CurrentStage == "" {
		return ""
	}
	info := strings.TrimSpace(p.ProgressInfo)
	switch {
	case info == "":
		return string(p.CurrentStage)
	case p.CurrentStage == models.HostStageFailed:
		return string(p.CurrentStage) + ": " + info
	case len(info) <= 12:
		return string(p.CurrentStage) + " (" + info + ")"
	}
	return string(p.CurrentStage)
}

// installing reports whether h is in one of the states of an
// installation (or done with it), where a bar means something.
func installing(h *client.Host) bool {
	switch h.Status {
	case models.HostStatusPreparingForInstallation, models.HostStatusPreparingSuccessful,
		models.HostStatusInstalling, models.HostStatusInstallingInProgress,
		models.HostStatusInstallingPendingUserAction, models.HostStatusInstalled,
		models.HostStatusAddedToExistingCluster, models.HostStatusError, models.HostStatusCancelled:
		return true
	}
	return h.Progress != nil && h.Progress.CurrentStage != ""
}

func progressBar(h *client.Host) string {
	if !installing(h) {
		return ""
	}
	pct := Percent(h)
	n := pct * BarWidth / 100
	return strings.Repeat(barDone, n) + strings.Repeat(barTodo, BarWidth-n) + fmt.Sprintf(" %3d%%", pct)
}

// Percent is how far h's installation is, 0 to 100: the server's
// installation_percentage, else the share of the stages passed (the
// stage of the host's progress_stages, or of the install contract's
// order), moving through the disk write with its "NN%". An installed
// host is at 100.
func Percent(h *client.Host) int {
	if h.Status == models.HostStatusInstalled || h.Status == models.HostStatusAddedToExistingCluster {
		return 100
	}
	p := h.Progress
	if p == nil || p.CurrentStage == "" {
		return 0
	}
	if p.CurrentStage == models.HostStageDone {
		return 100
	}
	stages := h.ProgressStages
	if len(stages) == 0 {
		stages = installStages
	}
	i := slices.Index(stages, p.CurrentStage)
	if i < 0 {
		return clamp(int(p.InstallationPercentage))
	}
	lo, hi := i*100/len(stages), (i+1)*100/len(stages)
	if n, ok := percentOf(p.ProgressInfo); ok && p.CurrentStage == models.HostStageWritingImageToDisk {
		return clamp(lo + (hi-lo)*n/100)
	}
	if p.InstallationPercentage > 0 {
		return clamp(int(p.InstallationPercentage))
	}
	return hi
}

// percentOf parses "NN%".
func percentOf(s string) (int, bool) {
	v, ok := strings.CutSuffix(strings.TrimSpace(s), "%")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 || n > 100 {
		return 0, false
	}
	return n, true
}

func clamp(n int) int { return min(max(n, 0), 100) }

// FailingValidations is the table of what keeps cluster c from
// installing: its own validations that do not pass, then those of each
// of its hosts (status other than success or disabled).
func FailingValidations(c *client.Cluster) Table {
	t := Table{Header: []string{"OBJECT", "CATEGORY", "ID", "STATUS", "MESSAGE"}}
	addFailing(&t, "cluster", c.ValidationsInfo)
	for _, h := range c.Hosts {
		addFailing(&t, "host/"+firstOf(Hostname(h), h.ID), h.ValidationsInfo)
	}
	return t
}

func addFailing(t *Table, obj, info string) {
	all := validations(info)
	for i, r := range all.Rows { // CATEGORY, ID, STATUS, MESSAGE
		if r[2] == "success" || r[2] == "disabled" {
			continue
		}
		t.add(obj+"/"+all.Keys[i], append([]string{obj}, r...))
	}
}
