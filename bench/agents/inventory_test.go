package main

import (
	"encoding/json"
	"testing"

	"github.com/rackboot/rackboot/engine/models"
)

// Every host's inventory is valid JSON that decodes as an inventory, with
// MACs, serials, host ids and addresses no other host has.
func TestInventoriesDistinct(t *testing.T) {
	g, err := newInventoryGen()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	claim := func(i int, what, v string) {
		t.Helper()
		if v == "" {
			t.Fatalf("host %d: empty %s", i, what)
		}
		if j, dup := seen[v]; dup {
			t.Fatalf("host %d: %s %q already used by host %d", i, what, v, j)
		}
		seen[v] = i
	}
	for _, i := range []int{0, 1, 2, 255, 256, 257, 65535, 65536, 9999, maxHosts - 1} {
		id := hostIdentity(7, i)
		doc, err := g.inventory(id)
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid([]byte(doc)) {
			t.Fatalf("host %d: invalid JSON", i)
		}
		var inv models.Inventory
		if err := json.Unmarshal([]byte(doc), &inv); err != nil {
			t.Fatalf("host %d: %v", i, err)
		}
		claim(i, "host id", id.HostID)
		claim(i, "hostname", inv.Hostname)
		claim(i, "serial", inv.SystemVendor.SerialNumber)
		claim(i, "IPv4", inv.Interfaces[0].IPV4Addresses[0])
		for _, nic := range inv.Interfaces {
			claim(i, "MAC", nic.MacAddress)
		}
		for _, d := range inv.Disks {
			claim(i, "disk serial", d.Serial)
		}
		if inv.Boot.PxeInterface == "" || inv.CPU.Count != 16 || inv.Memory.PhysicalBytes != 64<<30 {
			t.Errorf("host %d: boot %q, %d CPUs, %d bytes", i, inv.Boot.PxeInterface, inv.CPU.Count, inv.Memory.PhysicalBytes)
		}
	}
	if hostIdentity(7, 3).HostID == hostIdentity(8, 3).HostID {
		t.Error("two runs share host ids")
	}
}
