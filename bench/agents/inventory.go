package main

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/rackboot/rackboot/engine/models"
)

// inventoryTemplate is rackboot-agent's golden inventory of a QEMU BIOS VM
// (cmd/rackboot-agent/inventory/testdata/qemu-bios.json); every simulated
// host reports it with its own identity and a server-sized CPU, memory
// and disk.
//
//go:embed testdata/inventory-template.json
var inventoryTemplate []byte

// ErrInventory: the template cannot be turned into host inventories.
var ErrInventory = errors.New("agents: inventory template")

// maxHosts bounds -hosts; the identity scheme keeps MACs and addresses
// distinct well beyond it (24 bits of index).
const maxHosts = 1_000_000

// identity is what makes a simulated host distinct.
type identity struct {
	Index    int
	HostID   string // the agent's host id (its system UUID)
	MACs     [2]string
	Hostname string
	Serial   string
	IPv4     string
}

// hostIdentity is host i's identity; run tags the run so two runs never
// share host ids.
func hostIdentity(run uint16, i int) identity {
	mac := func(nic byte) string {
		return net.HardwareAddr{0x02, 0x52, nic, byte(i >> 16), byte(i >> 8), byte(i)}.String()
	}
	n := i + 256 // skip 10.0.0.x: network and gateway
	return identity{
		Index:    i,
		HostID:   fmt.Sprintf("5241434b-%04x-4000-8000-%012x", run, i),
		MACs:     [2]string{mac(0), mac(1)},
		Hostname: fmt.Sprintf("rack%03d-node%03d", i/40, i%40),
		Serial:   fmt.Sprintf("RB%08d", i),
		IPv4:     fmt.Sprintf("10.%d.%d.%d", byte(n>>16), byte(n>>8), byte(n)),
	}
}

// inventoryGen makes per-host inventory JSON documents from the template.
type inventoryGen struct {
	tmpl []byte
}

func newInventoryGen() (*inventoryGen, error) {
	var inv models.Inventory
	if err := json.Unmarshal(inventoryTemplate, &inv); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInventory, err)
	}
	if len(inv.Interfaces) < 2 || len(inv.Disks) < 3 || inv.SystemVendor == nil || inv.Boot == nil ||
		inv.CPU == nil || inv.Memory == nil {
		return nil, fmt.Errorf("%w: missing interfaces, disks, system vendor, boot, CPU or memory", ErrInventory)
	}
	return &inventoryGen{tmpl: inventoryTemplate}, nil
}

// inventory is the inventory JSON of the host with identity id.
func (g *inventoryGen) inventory(id identity) (string, error) {
	var inv models.Inventory
	if err := json.Unmarshal(g.tmpl, &inv); err != nil { // a deep copy
		return "", fmt.Errorf("%w: %w", ErrInventory, err)
	}
	hyphen := strings.ReplaceAll(id.MACs[0], ":", "-")
	inv.Hostname = id.Hostname
	inv.Boot.PxeInterface = "01-" + hyphen
	inv.Boot.CommandLine = "BOOT_IMAGE=kernel initrd=initrd console=ttyS0 BOOTIF=01-" + hyphen
	inv.CPU.Count = 16
	inv.CPU.ModelName = "Intel(R) Xeon(R) Silver 4314 CPU @ 2.40GHz"
	inv.Memory.PhysicalBytes, inv.Memory.UsableBytes = 64<<30, 63<<30
	inv.SystemVendor = &models.SystemVendor{Manufacturer: "Supermicro", ProductName: "SYS-1029P-WTR",
		SerialNumber: id.Serial}
	for k, d := range inv.Disks {
		d.Serial = fmt.Sprintf("%s-D%d", id.Serial, k)
		if d.Wwn != "" {
			d.Wwn = fmt.Sprintf("0x5000c500%08x", id.Index)
			d.ByID = "/dev/disk/by-id/wwn-" + d.Wwn
			d.ID = d.ByID
		}
	}
	inv.Disks[1].SizeBytes = 480 << 30
	for k, nic := range inv.Interfaces[:2] {
		nic.MacAddress = id.MACs[k]
	}
	inv.Interfaces[0].IPV4Addresses = []string{id.IPv4 + "/8"}
	inv.Interfaces[0].IPV6Addresses = []string{fmt.Sprintf("fd00:52::%x:%x/64", id.Index>>16, id.Index&0xffff)}
	inv.Routes = []*models.Route{
		{Destination: "0.0.0.0", Family: models.FamilyIPv4, Gateway: "10.0.0.1", Interface: "ens3", Metric: 100},
		{Destination: "10.0.0.0", Family: models.FamilyIPv4, Interface: "ens3", Metric: 100},
	}
	b, err := json.Marshal(&inv)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrInventory, err)
	}
	return string(b), nil
}
