package inventory

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"runtime"
	"testing"
)

// TestCollectThisMachine runs the real collector on the machine running the
// test and checks it against what the Go runtime and net package see.
func TestCollectThisMachine(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads Linux /proc and /sys")
	}
	inv, err := Collect(context.Background())
	if err != nil {
		t.Errorf("Collect: %v", err)
	}
	if inv.CPU == nil || inv.CPU.Count != int64(runtime.NumCPU()) {
		t.Errorf("cpu = %+v, runtime.NumCPU() = %d", inv.CPU, runtime.NumCPU())
	}
	if inv.CPU != nil && inv.CPU.Architecture != KernelArch(runtime.GOARCH) {
		t.Errorf("architecture = %q", inv.CPU.Architecture)
	}
	if inv.Memory == nil || inv.Memory.UsableBytes <= 0 || inv.Memory.PhysicalBytes < inv.Memory.UsableBytes {
		t.Errorf("memory = %+v", inv.Memory)
	}
	if len(inv.Interfaces)+len(inv.Routes) == 0 {
		t.Error("no interfaces and no routes")
	}
	host, _ := os.Hostname()
	if want := ReplaceForbiddenHostname(host, inv.Interfaces); inv.Hostname != want {
		t.Errorf("hostname = %q, os.Hostname = %q", inv.Hostname, host)
	}
	ifs, err := net.Interfaces()
	if err != nil {
		t.Fatal(err)
	}
	macs := map[string]string{}
	for _, i := range ifs {
		macs[i.Name] = i.HardwareAddr.String()
	}
	for _, i := range inv.Interfaces {
		_, slave := os.Stat("/sys/class/net/" + i.Name + "/bonding_slave")
		if mac, ok := macs[i.Name]; !ok || (mac != i.MacAddress && slave != nil) {
			t.Errorf("interface %s mac %s, net says %q (present %v)", i.Name, i.MacAddress, mac, ok)
		}
	}
	for _, d := range inv.Disks {
		if _, err := os.Stat("/sys/block/" + d.Name); err != nil || d.Path != "/dev/"+d.Name {
			t.Errorf("disk %+v: %v", d, err)
		}
	}
	b, _ := json.MarshalIndent(inv, "", "  ")
	t.Logf("inventory of this machine:\n%s", b)
}
