package report

import (
	"bytes"
	"flag"
	"os"
	"testing"
	"time"

	"github.com/rackboot/rackboot/bench/internal/dhcpbench"
	"github.com/rackboot/rackboot/bench/internal/httpbench"
	"github.com/rackboot/rackboot/bench/internal/tftpbench"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func sample() Report {
	step := func(rate int, ex float64, drop float64, ok bool) dhcpbench.Step {
		return dhcpbench.Step{Rate: rate, Exchanges: ex, DropPct: drop, OK: ok, Acked: int(ex * 5),
			ServerCPU: time.Duration(ex*5) * 120 * time.Microsecond,
			DO:        dhcpbench.Percentiles{P50: 200 * time.Microsecond, P90: 700 * time.Microsecond, P99: 3 * time.Millisecond, Max: 15 * time.Millisecond},
			RA:        dhcpbench.Percentiles{P50: 800 * time.Microsecond, P90: 2 * time.Millisecond, P99: 8 * time.Millisecond, Max: 19 * time.Millisecond}}
	}
	rb := dhcpbench.Result{Name: "rackbootd", Steps: []dhcpbench.Step{step(4000, 3999, 0, true), step(8000, 7027, 9.7, false)}}
	rb.Best = rb.Steps[0]
	kea := dhcpbench.Result{Name: "kea-dhcp4", Steps: []dhcpbench.Step{step(4000, 3994, 0.14, true)}}
	kea.Best = kea.Steps[0]
	tftpRes := func(sec float64) tftpbench.Result {
		return tftpbench.Result{Transfers: 500, Bytes: 500 * 850528, Seconds: sec}
	}
	httpRes := func(sec float64) httpbench.Result {
		return httpbench.Result{Downloads: 200, Bytes: 200 * 50331936, Seconds: sec, P50: sec * 0.9, P90: sec * 0.97, Max: sec}
	}
	return Report{
		Machine: Machine{
			Command: "make bench", Date: time.Date(2026, 11, 21, 5, 26, 0, 0, time.UTC),
			CPUs: 2, CPUModel: "AMD EPYC", MemTotal: "23.5 GiB", Kernel: "6.18.44", Storage: "ext4 on /dev/vda",
			OS: "Debian GNU/Linux 12 (bookworm) (12.11)", Go: "go1.26.8", Rackboot: "abc1234",
			LoadAvg:  [2]string{"0.50 0.40 0.30", "1.90 1.20 0.60"},
			Packages: map[string]string{"kea-admin": "2.2.0-6"}, Order: []string{"kea-admin"},
		},
		DHCP:    []DHCPRow{{Result: rb}, {Result: kea}, {Result: dhcpbench.Result{Name: "dnsmasq"}, Note: "failed: x | y\nz"}},
		DHCPCfg: dhcpbench.Options{Period: 5 * time.Second, Clients: 50000, StartRate: 1000, MaxRate: 64000, Refine: 3, Retry: true},
		TFTP: []TFTPRow{
			{Server: "tftpd-hpa", Result: tftpRes(4.5), Runs: []tftpbench.Result{tftpRes(4.5), tftpRes(5)}, CPU: 4500 * time.Millisecond},
			{Server: "rackbootd", Result: tftpRes(4), Runs: []tftpbench.Result{tftpRes(4), tftpRes(5.2)}, CPU: 2800 * time.Millisecond},
			{Server: "tftpd-hpa, windowsize 8 asked", Result: tftpRes(4.4), Runs: []tftpbench.Result{tftpRes(4.4)}, CPU: 4400 * time.Millisecond},
			{Server: "rackbootd, windowsize 8 asked", Result: tftpRes(1.1), Runs: []tftpbench.Result{tftpRes(1.1)}, CPU: 900 * time.Millisecond},
		},
		TFTPCfg: tftpbench.Load{File: "ipxe.efi", Size: 850528, Workers: 50, PerWorker: 10, BlkSize: 1468},
		HTTP: []HTTPRow{
			{Server: "rackbootd", Result: httpRes(3.4), Runs: []httpbench.Result{httpRes(3.4)}, CPU: 1300 * time.Millisecond,
				RSSBefore: 10400, RSSAfter: 20800, HWM: 20900, BodyBytes: 50331936},
			{Server: "nginx", Result: httpRes(3.7), Runs: []httpbench.Result{httpRes(3.7)}, CPU: 2 * time.Second, BodyBytes: 50331936},
		},
		HTTPCfg: "200 concurrent clients.",
		Notes:   []string{"a note"},
	}
}

func TestWriteGolden(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, sample()); err != nil {
		t.Fatal(err)
	}
	const golden = "testdata/report.golden.md"
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("report differs from %s (run with -update after checking):\n%s", golden, b.String())
	}
}

func TestRatioAndCells(t *testing.T) {
	if got := ratio(3, 2); got != "1.50×" {
		t.Errorf("ratio(3, 2) = %q", got)
	}
	if got := ratio(3, 0); got != "–" {
		t.Errorf("ratio(3, 0) = %q", got)
	}
	if got := cell("a | b\nc"); got != `a \| b c` {
		t.Errorf("cell = %q", got)
	}
}
