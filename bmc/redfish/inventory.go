package redfish

import (
	"context"
	"encoding/json"
	"net"
	"slices"
	"strings"

	"github.com/stmcginnis/gofish"
	"github.com/stmcginnis/gofish/schemas"

	"github.com/rackboot/rackboot/bmc"
)

// Inventory reads the ComputerSystem, its EthernetInterfaces (the host's
// NICs, not the BMC's) and its Processors.
func (d *Driver) Inventory(ctx context.Context) (bmc.Inventory, error) {
	const op = "inventory"
	api, path, err := d.client(ctx, op)
	if err != nil {
		return bmc.Inventory{}, err
	}
	sys, err := schemas.GetObject[schemas.ComputerSystem](api, path)
	if err != nil {
		return bmc.Inventory{}, d.fail(op, err)
	}
	inv := bmc.Inventory{
		Manufacturer: strings.TrimSpace(sys.Manufacturer),
		Model:        strings.TrimSpace(sys.Model),
		SerialNumber: strings.TrimSpace(sys.SerialNumber),
		UUID:         strings.ToLower(sys.UUID),
		PowerState:   powerState(string(sys.PowerState)),
		CPU: bmc.CPU{
			Count: int(gofish.Deref(sys.ProcessorSummary.Count)),
			Model: strings.TrimSpace(sys.ProcessorSummary.Model),
			Cores: int(gofish.Deref(sys.ProcessorSummary.CoreCount)),
		},
		MemoryGiB: gofish.Deref(sys.MemorySummary.TotalSystemMemoryGiB),
	}
	var links struct {
		EthernetInterfaces odataRef `json:"EthernetInterfaces"`
		Processors         odataRef `json:"Processors"`
	}
	if err := json.Unmarshal(sys.RawData, &links); err != nil {
		return bmc.Inventory{}, d.failf(op, bmc.ErrBMC, "malformed system: %v", err)
	}
	if inv.NICs, err = d.nics(api, op, links.EthernetInterfaces.ID); err != nil {
		return bmc.Inventory{}, err
	}
	if err := d.processors(api, op, links.Processors.ID, &inv.CPU); err != nil {
		return bmc.Inventory{}, err
	}
	return inv, nil
}

// nics reads the EthernetInterfaces collection one member at a time (in the
// BMC's order) and keeps those with a valid MAC.
func (d *Driver) nics(api *gofish.APIClient, op, collection string) ([]bmc.NIC, error) {
	out := []bmc.NIC{}
	if !validLink(collection) {
		return out, nil
	}
	members, err := d.members(api, op, collection)
	if err != nil {
		return nil, err
	}
	for _, m := range members {
		if !validLink(m) {
			continue
		}
		eth, err := schemas.GetObject[schemas.EthernetInterface](api, m)
		if err != nil {
			return nil, d.fail(op, err)
		}
		hw, ok := bootableMAC(eth)
		if !ok || slices.ContainsFunc(out, func(n bmc.NIC) bool { return n.MAC == hw.String() }) {
			continue
		}
		out = append(out, bmc.NIC{
			ID:        eth.ID,
			MAC:       hw.String(),
			SpeedMbps: gofish.Deref(eth.SpeedMbps),
			LinkUp:    eth.LinkStatus == schemas.LinkUpLinkStatus,
		})
	}
	return out, nil
}

// bootableMAC is the MAC of a physical host NIC: VLAN and other virtual
// interfaces, and the host's USB/LAN link to its own BMC (an interface
// linked to a HostInterface), are not NICs a machine boots from.
func bootableMAC(eth *schemas.EthernetInterface) (net.HardwareAddr, bool) {
	var extra struct {
		Type  string `json:"EthernetInterfaceType"`
		Links struct {
			HostInterface *odataRef `json:"HostInterface"`
		} `json:"Links"`
	}
	_ = json.Unmarshal(eth.RawData, &extra) // gofish decoded the same bytes already
	if extra.Type == "Virtual" || extra.Links.HostInterface != nil {
		return nil, false
	}
	mac := eth.MACAddress
	if mac == "" {
		mac = eth.PermanentMACAddress
	}
	hw, err := net.ParseMAC(mac)
	if err != nil || len(hw) != 6 {
		return nil, false
	}
	return hw, true
}

// processors fills in what the ProcessorSummary left out from the
// Processors collection (CPUs only).
func (d *Driver) processors(api *gofish.APIClient, op, collection string, cpu *bmc.CPU) error {
	if !validLink(collection) {
		return nil
	}
	members, err := d.members(api, op, collection)
	if err != nil {
		return err
	}
	count, cores, threads := 0, 0, 0
	for _, m := range members {
		if !validLink(m) {
			continue
		}
		p, err := schemas.GetObject[schemas.Processor](api, m)
		if err != nil {
			return d.fail(op, err)
		}
		if p.ProcessorType != "" && p.ProcessorType != schemas.CPUProcessorType {
			continue
		}
		count++
		cores += gofish.Deref(p.TotalCores)
		threads += gofish.Deref(p.TotalThreads)
		if cpu.Model == "" {
			cpu.Model = strings.TrimSpace(p.Model)
		}
	}
	if cpu.Count == 0 {
		cpu.Count = count
	}
	if cpu.Cores == 0 {
		cpu.Cores = cores
	}
	cpu.Threads = threads
	return nil
}
