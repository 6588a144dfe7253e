package main

import (
	"strings"
	"testing"
	"time"
)

// The rack report gives one ratio per CPU set-up, from the median rates,
// and says whether each meets the target.
func TestRackReportRatios(t *testing.T) {
	run := func(n int, cpus float64, secs float64) stormRun {
		return stormRun{appliances: n, cpus: cpus, hosts: 1000, withInventory: 1000, countedVia: "x",
			elapsed: time.Duration(secs * float64(time.Second))}
	}
	r := &rackResult{opts: options{rack: 3, rounds: 2, hosts: 1000, applianceCPU: 0.5, bin: "bin/rackbootd"}, args: []string{"agents"},
		runs: []stormRun{
			run(1, 0.5, 10), run(3, 0.5, 11), run(1, 0.5, 10), run(3, 0.5, 12), // 91/100 and 83/100 hosts/s: median 87 ÷ 100
			run(1, 0, 2), run(3, 0, 4), run(1, 0, 2), run(3, 0, 4), // 250 ÷ 500
		}}
	md := r.markdown()
	for _, want := range []string{
		"0.5 of its own: median rate, 3 appliances ÷ 1: 87 ÷ 100 hosts/s = **0.87×** (target ≥ 0.8×: met)",
		"shared: median rate, 3 appliances ÷ 1: 250 ÷ 500 hosts/s = **0.50×** (target ≥ 0.8×: not met)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "have an inventory") {
		t.Errorf("report flags a lost host where none was lost:\n%s", md)
	}
	r.runs[1].withInventory = 999
	if md := r.markdown(); !strings.Contains(md, "1000 hosts registered, but 999 have an inventory") {
		t.Errorf("a lost inventory is not reported:\n%s", md)
	}
}
