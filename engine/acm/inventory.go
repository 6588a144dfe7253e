package acm

import (
	"encoding/json"

	"github.com/rackboot/rackboot/engine/models"
)

// agentInventory is the host's inventory (the REST API's document) in
// upstream's Agent status.inventory fields (agent_types.go
// HostInventory): hostname, BMC addresses, memory, CPU, interfaces,
// disks, boot and system vendor. nil when the host sent none.
func agentInventory(raw json.RawMessage) map[string]any {
	if len(raw) == 0 {
		return nil
	}
	var inv models.Inventory
	if json.Unmarshal(raw, &inv) != nil {
		return nil
	}
	out := map[string]any{}
	set := func(k string, v any, keep bool) {
		if keep {
			out[k] = v
		}
	}
	set("hostname", inv.Hostname, inv.Hostname != "")
	set("bmcAddress", inv.BmcAddress, inv.BmcAddress != "")
	set("bmcV6Address", inv.BmcV6address, inv.BmcV6address != "")
	if m := inv.Memory; m != nil {
		out["memory"] = map[string]any{"physicalBytes": m.PhysicalBytes, "usableBytes": m.UsableBytes}
	}
	if c := inv.CPU; c != nil {
		out["cpu"] = map[string]any{"count": c.Count, "clockMegahertz": int64(c.Frequency), "flags": c.Flags,
			"modelName": c.ModelName, "architecture": c.Architecture}
	}
	var ifs []any
	for _, i := range inv.Interfaces {
		if i == nil {
			continue
		}
		ifs = append(ifs, map[string]any{"name": i.Name, "macAddress": i.MacAddress, "ipV4Addresses": nonNil(i.IPV4Addresses),
			"ipV6Addresses": nonNil(i.IPV6Addresses), "flags": nonNil(i.Flags), "hasCarrier": i.HasCarrier, "mtu": i.Mtu,
			"speedMbps": i.SpeedMbps, "vendor": i.Vendor, "product": i.Product, "biosDevName": i.Biosdevname, "clientID": i.ClientID})
	}
	set("interfaces", ifs, len(ifs) > 0)
	var disks []any
	for _, d := range inv.Disks {
		if d == nil {
			continue
		}
		disks = append(disks, map[string]any{"id": d.ID, "name": d.Name, "path": d.Path, "byPath": d.ByPath, "byID": d.ByID,
			"driveType": string(d.DriveType), "vendor": d.Vendor, "model": d.Model, "serial": d.Serial, "wwn": d.Wwn,
			"hctl": d.Hctl, "sizeBytes": d.SizeBytes, "bootable": d.Bootable, "smart": d.Smart,
			"installationEligibility": map[string]any{"eligible": d.InstallationEligibility.Eligible,
				"notEligibleReasons": nonNil(d.InstallationEligibility.NotEligibleReasons)}})
	}
	set("disks", disks, len(disks) > 0)
	if b := inv.Boot; b != nil {
		out["boot"] = map[string]any{"currentBootMode": b.CurrentBootMode, "pxeInterface": b.PxeInterface, "deviceType": b.DeviceType}
	}
	if v := inv.SystemVendor; v != nil {
		out["systemVendor"] = map[string]any{"manufacturer": v.Manufacturer, "productName": v.ProductName,
			"serialNumber": v.SerialNumber, "virtual": v.Virtual}
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// agentNTPSources are the time sources of the host's last NTP step
// output (the REST API's ntp_sources) as upstream's Agent
// status.ntpSources (HostNTPSources: sourceName, sourceState). nil when
// the host reported none.
func agentNTPSources(raw json.RawMessage) []any {
	if len(raw) == 0 {
		return nil
	}
	var out models.NtpSynchronizationResponse
	if json.Unmarshal(raw, &out) != nil {
		return nil
	}
	var srcs []any
	for _, s := range out.NtpSources {
		if s == nil {
			continue
		}
		src := map[string]any{}
		if s.SourceName != "" {
			src["sourceName"] = s.SourceName
		}
		if s.SourceState != "" {
			src["sourceState"] = string(s.SourceState)
		}
		srcs = append(srcs, src)
	}
	return srcs
}
