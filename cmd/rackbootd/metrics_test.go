package main

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	pintftp "github.com/pin/tftp/v3"

	"github.com/rackboot/rackboot/cmd/rackbootd/internal/metrics/promtooltest"
)

// sample returns the value of the series line that starts with series
// (name and labels as exposed) and whether there is one.
func sample(text, series string) (float64, bool) {
	for _, line := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			return f, err == nil
		}
	}
	return 0, false
}

// TestDaemonMetrics: after TFTP, HTTP boot and API traffic on loopback,
// rackbootd's /metrics shows what an operator graphs and alerts on, with
// the values the traffic implies, and promtool finds the exposition clean.
func TestDaemonMetrics(t *testing.T) {
	d := startDaemon(t)
	d.waitNote("READY=1")

	c, err := pintftp.NewClient(d.tftpAddr)
	if err != nil {
		t.Fatal(err)
	}
	c.SetTimeout(5 * time.Second)
	wt, err := c.Receive("big.bin", "octet")
	if err != nil {
		t.Fatal(err)
	}
	if n, err := wt.WriteTo(io.Discard); err != nil || n != 1<<20 {
		t.Fatalf("TFTP big.bin: %d bytes, %v", n, err)
	}
	d.get("/boot/" + testMAC + "/script.ipxe")
	if resp, err := http.Get("http://" + d.httpAddr + "/ipxe/none.efi"); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}
	admin := "Authorization: Bearer " + d.adminToken()
	d.createInfraEnv("rack")
	if code, body := d.call("GET", "/clusters", "", ""); code != http.StatusUnauthorized {
		t.Fatalf("GET clusters without a token: %d %s", code, body)
	}
	if code, body := d.call("POST", "/clusters", admin, `{"name":"c1","openshift_version":"4.17","pull_secret":"{\"auths\":{}}","high_availability_mode":"None"}`); code != http.StatusCreated {
		t.Fatalf("create cluster: %d %s", code, body)
	}

	// The install controller makes its first pass once it leads, and the
	// server counts the TFTP transfer when the client's last ACK arrives,
	// after the client has the file: wait for both rather than for a time.
	var text string
	deadline := time.Now().Add(waitLimit)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for ; ; <-tick.C {
		text = d.get("/metrics")
		passes, _ := sample(text, `rackboot_controller_passes_total{controller="install"}`)
		if done, _ := sample(text, "rackboot_tftp_transfers_completed_total"); passes >= 1 && done >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no install controller pass or no completed TFTP transfer:\n%s", text)
		}
	}
	want := map[string]float64{
		`rackboot_raft_state{state="leader"}`:                                                                   1,
		`rackboot_raft_state{state="follower"}`:                                                                 0,
		`rackboot_infraenvs`:                                                                                    1,
		`rackboot_clusters{status="pending-for-input"}`:                                                         1,
		`rackboot_tftp_transfers_completed_total`:                                                               1,
		`rackboot_tftp_sent_bytes_total`:                                                                        1 << 20,
		`rackboot_http_requests_total{code="200",method="GET",route="/boot/{mac}/script.ipxe"}`:                 1,
		`rackboot_http_requests_total{code="404",method="GET",route="/ipxe/{file}"}`:                            1,
		`rackboot_http_requests_total{code="201",method="POST",route="/api/assisted-install/v2/infra-envs"}`:    1,
		`rackboot_http_requests_total{code="401",method="GET",route="/api/assisted-install/v2/clusters"}`:       1,
		`rackboot_http_requests_total{code="201",method="POST",route="/api/assisted-install/v2/clusters"}`:      1,
		`rackboot_http_request_duration_seconds_count{method="POST",route="/api/assisted-install/v2/clusters"}`: 1,
		`rackboot_controller_errors_total{controller="install"}`:                                                0,
		`rackboot_config_reloads_total`:                                                                         0,
	}
	for series, v := range want {
		if got, ok := sample(text, series); !ok || got != v {
			t.Errorf("%s = %v (present %v), want %v", series, got, ok, v)
		}
	}
	positive := []string{"rackboot_raft_term", "rackboot_raft_commit_index", "rackboot_raft_applied_index",
		"rackboot_raft_apply_duration_seconds_count", `rackboot_http_response_bytes_total{route="/boot/{mac}/script.ipxe"}`,
		"process_resident_memory_bytes", "go_goroutines"}
	for _, series := range positive {
		if got, ok := sample(text, series); !ok || got <= 0 {
			t.Errorf("%s = %v (present %v), want > 0", series, got, ok)
		}
	}
	if strings.Contains(text, "52-54-00-00-00-01") || strings.Contains(text, d.adminToken()) {
		t.Error("a raw path or the admin token reached /metrics")
	}
	if t.Failed() {
		t.Logf("/metrics:\n%s", text)
	}
	t.Logf("exposition: %d bytes, %d lines", len(text), strings.Count(text, "\n"))
	promtooltest.CheckMetrics(t, text)
	d.stop()
}
