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
// installing: vs (the server's list from its 409), or when that is empty
// the validations of c and of its hosts that do not pass (status other
// than success or disabled). Hosts are named by hostname where c knows
// them.
func FailingValidations(c *client.Cluster, vs []client.FailingValidation) Table {
	t := Table{Header: []string{"OBJECT", "ID", "STATUS", "MESSAGE"}}
	names := map[string]string{}
	for _, h := range c.Hosts {
		names[h.ID] = firstOf(Hostname(h), h.ID)
	}
	if len(vs) == 0 {
		vs = failing(c.ValidationsInfo, "")
		for _, h := range c.Hosts {
			vs = append(vs, failing(h.ValidationsInfo, h.ID)...)
		}
	}
	for i, v := range vs {
		obj := "cluster"
		if v.HostID != "" {
			obj = "host/" + firstOf(names[v.HostID], v.HostID)
		}
		t.add(strconv.Itoa(i), []string{obj, v.ID, v.Status, v.Message})
	}
	return t
}

// failing lists the validations of a validations_info document that do
// not pass, for hostID ("" for the cluster).
func failing(info, hostID string) []client.FailingValidation {
	var out []client.FailingValidation
	for _, r := range validations(info).Rows { // CATEGORY, ID, STATUS, MESSAGE
		if r[2] != "success" && r[2] != "disabled" {
			out = append(out, client.FailingValidation{ID: r[1], Status: r[2], Message: r[3], HostID: hostID})
		}
	}
	return out
}
