package console

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/rackboot/rackboot/engine/models"
)

// hostRow is one line of the hosts table.
type hostRow struct {
	ID, InfraEnvID, ClusterID string
	Name, Status, StatusInfo  string
	Role                      string
	Approved                  bool
	CPUs                      int64
	MemoryBytes, DiskBytes    int64
	Memory, Disk              string
	Stage                     string
	Percent                   int64
	Installing                bool
}

// validation is one validation result, as upstream words it.
type validation struct {
	Category, ID, Status, Message string
}

// hostView is a host with its decoded inventory.
type hostView struct {
	hostRow
	Host       models.APIHost
	Inv        models.Inventory
	Validation []validation
	Stages     []stage
	Roles      []string
}

// stage is one step of a host's installation progress.
type stage struct {
	Name         string
	Done, Active bool
}

// hostRoles are the roles a user may choose.
var hostRoles = []string{"auto-assign", "master", "worker"}

// newHostView decodes h's inventory and validations.
func newHostView(h models.APIHost) hostView {
	v := hostView{Host: h, Roles: hostRoles}
	if h.Inventory != "" {
		_ = json.Unmarshal([]byte(h.Inventory), &v.Inv) // the API stores only inventories it decoded
	}
	v.hostRow = newHostRow(h, &v.Inv)
	v.Validation = validations(h.ValidationsInfo)
	v.Stages = stages(h)
	return v
}

// newHostRow is h as a table row (inv: its decoded inventory).
func newHostRow(h models.APIHost, inv *models.Inventory) hostRow {
	r := hostRow{ID: h.ID, InfraEnvID: h.InfraEnvID, ClusterID: h.ClusterID, Status: h.Status,
		StatusInfo: h.StatusInfo, Role: string(h.Role), Approved: h.Approved}
	r.Name = cmp.Or(h.RequestedHostname, inv.Hostname, h.ID)
	if inv.CPU != nil {
		r.CPUs = inv.CPU.Count
	}
	if inv.Memory != nil {
		r.MemoryBytes = inv.Memory.PhysicalBytes
	}
	for _, d := range inv.Disks {
		if d.ID == h.InstallationDiskID || (r.DiskBytes == 0 && h.InstallationDiskID == "") {
			r.DiskBytes = d.SizeBytes
		}
	}
	r.Memory, r.Disk = bytesText(r.MemoryBytes), bytesText(r.DiskBytes)
	if h.Progress != nil {
		r.Stage, r.Percent = string(h.Progress.CurrentStage), h.Progress.InstallationPercentage
		r.Installing = r.Stage != ""
	}
	return r
}

// bytesText is n in GiB (or "–").
func bytesText(n int64) string {
	if n <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}

// validations decodes a validations_info document, failures first.
func validations(info string) []validation {
	if info == "" {
		return nil
	}
	var doc map[string][]struct {
		ID      string `json:"id"`
		Status  string `json:"status"`
		Message string `json:"message"`
	}
	if json.Unmarshal([]byte(info), &doc) != nil {
		return nil
	}
	var out []validation
	for cat, vs := range doc {
		for _, v := range vs {
			out = append(out, validation{Category: cat, ID: v.ID, Status: v.Status, Message: v.Message})
		}
	}
	rank := map[string]int{"failure": 0, "error": 0, "pending": 1, "success": 2, "disabled": 3}
	slices.SortFunc(out, func(a, b validation) int {
		return cmp.Or(cmp.Compare(rank[a.Status], rank[b.Status]), cmp.Compare(a.Category, b.Category), cmp.Compare(a.ID, b.ID))
	})
	return out
}

// blocking are the validations that are not passing.
func blocking(vs []validation) []validation {
	var out []validation
	for _, v := range vs {
		if v.Status == "failure" || v.Status == "error" || v.Status == "pending" {
			out = append(out, v)
		}
	}
	return out
}

// stages are h's installation stages with the current one marked.
func stages(h models.APIHost) []stage {
	if len(h.ProgressStages) == 0 {
		return nil
	}
	cur := ""
	if h.Progress != nil {
		cur = string(h.Progress.CurrentStage)
	}
	i := slices.IndexFunc(h.ProgressStages, func(s models.HostStage) bool { return string(s) == cur })
	out := make([]stage, len(h.ProgressStages))
	for j, s := range h.ProgressStages {
		out[j] = stage{Name: string(s), Done: j < i || cur == string(models.HostStageDone), Active: j == i}
	}
	return out
}
