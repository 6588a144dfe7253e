package console

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"

	"github.com/rackboot/rackboot/engine"
)

// rowInventory is the part of an inventory the hosts table shows.
type rowInventory struct {
	Hostname string `json:"hostname"`
	CPU      *struct {
		Count int64 `json:"count"`
	} `json:"cpu"`
	Memory *struct {
		PhysicalBytes int64 `json:"physical_bytes"`
	} `json:"memory"`
	Disks []struct {
		ID        string `json:"id"`
		SizeBytes int64  `json:"size_bytes"`
	} `json:"disks"`
}

// hostRows is every host as a table row, sorted by name. It reads the
// model directly rather than listing through the API: the table needs a
// few fields of each host, and encoding a thousand inventories to JSON and
// back for each refresh would cost the appliance more than the page.
func (c *Console) hostRows() []hostRow {
	var hosts []engine.Host
	c.store.Read(func(m *engine.Model) {
		for h := range m.Hosts() {
			h.Inventory = bytes.Clone(h.Inventory) // the model's bytes stay the model's
			hosts = append(hosts, h)
		}
	})
	rows := make([]hostRow, 0, len(hosts))
	for _, h := range hosts {
		rows = append(rows, engineRow(h))
	}
	slices.SortFunc(rows, func(a, b hostRow) int { return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.ID, b.ID)) })
	return rows
}

// engineRow is h as a table row.
func engineRow(h engine.Host) hostRow {
	var inv rowInventory
	if len(h.Inventory) > 0 {
		_ = json.Unmarshal(h.Inventory, &inv) // the API stores only inventories it decoded
	}
	r := hostRow{ID: h.ID, InfraEnvID: h.InfraEnvID, ClusterID: h.ClusterID, Status: h.Status,
		StatusInfo: h.StatusInfo, Role: cmp.Or(h.Role, "auto-assign"), Approved: h.Approved}
	r.Name = cmp.Or(h.RequestedHostname, inv.Hostname, h.ID)
	if inv.CPU != nil {
		r.CPUs = inv.CPU.Count
	}
	if inv.Memory != nil {
		r.MemoryBytes = inv.Memory.PhysicalBytes
	}
	for _, d := range inv.Disks {
		if d.ID == h.InstallationDiskID {
			r.DiskBytes = d.SizeBytes
		}
	}
	r.Memory, r.Disk = bytesText(r.MemoryBytes), bytesText(r.DiskBytes)
	r.Stage, r.Percent = h.Progress.CurrentStage, int64(h.Progress.InstallationPercentage)
	r.Installing = r.Stage != ""
	return r
}
