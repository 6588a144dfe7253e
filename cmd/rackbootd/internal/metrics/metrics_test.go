package metrics

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/insomniacslk/dhcp/dhcpv4/nclient4"
	pintftp "github.com/pin/tftp/v3"

	"github.com/rackboot/rackboot/cmd/rackbootd/internal/metrics/promtooltest"
	"github.com/rackboot/rackboot/dhcp"
	"github.com/rackboot/rackboot/tftp"
)

// waitLimit bounds waits on the servers; nothing is asserted about speed.
const waitLimit = 20 * time.Second

// scrape GETs url and returns the exposition text.
func scrape(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s %v", url, resp.Status, err)
	}
	return string(b)
}

// wantLines fails t for each line missing from the exposition.
func wantLines(t *testing.T, text string, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if !strings.Contains(text, "\n"+l+"\n") {
			t.Errorf("/metrics lacks %q", l)
		}
	}
	if t.Failed() {
		t.Logf("/metrics:\n%s", text)
	}
}

// sampleValue returns the value of the unlabelled series name.
func sampleValue(text, name string) (float64, bool) {
	for _, line := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			return f, err == nil
		}
	}
	return 0, false
}

// serveDHCP runs a full-mode DHCP server over memory leases on a
// 127.0.0.1 socket.
func serveDHCP(t *testing.T) (*dhcp.Server, *net.UDPAddr) {
	t.Helper()
	srv, err := dhcp.New(dhcp.Config{
		ServerIP: netip.MustParseAddr("10.99.0.1"),
		Subnet:   netip.MustParsePrefix("10.99.0.0/24"),
		Ranges: []dhcp.Range{
			{Start: netip.MustParseAddr("10.99.0.100"), End: netip.MustParseAddr("10.99.0.199")},
			{Start: netip.MustParseAddr("10.99.0.200"), End: netip.MustParseAddr("10.99.0.209")},
		},
	}, dhcp.NewMemoryLeases(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, conn) }()
	t.Cleanup(func() {
		cancel()
		<-done
		conn.Close()
	})
	return srv, conn.LocalAddr().(*net.UDPAddr)
}

// dora gets a lease for mac from the server at addr, after sending it a
// packet that is not DHCP.
func dora(t *testing.T, addr *net.UDPAddr, mac net.HardwareAddr) {
	t.Helper()
	conn, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.WriteTo([]byte("not dhcp"), addr); err != nil {
		t.Fatal(err)
	}
	c, err := nclient4.NewWithConn(conn, mac, nclient4.WithServerAddr(addr), nclient4.WithTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if _, err := c.Request(ctx); err != nil {
		t.Fatalf("DORA over loopback: %v", err)
	}
}

// serveTFTP serves dir over TFTP on a 127.0.0.1 socket.
func serveTFTP(t *testing.T, dir string) (*tftp.Server, string) {
	t.Helper()
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := tftp.New(os.DirFS(dir), tftp.Config{}, nil)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(conn) }()
	t.Cleanup(func() {
		srv.Shutdown()
		<-done
	})
	return srv, conn.LocalAddr().String()
}

// tftpGet downloads name with a real TFTP client.
func tftpGet(t *testing.T, addr, name string) (int64, error) {
	t.Helper()
	c, err := pintftp.NewClient(addr)
	if err != nil {
		t.Fatal(err)
	}
	c.SetTimeout(5 * time.Second)
	wt, err := c.Receive(name, "octet")
	if err != nil {
		return 0, err
	}
	return wt.WriteTo(io.Discard)
}

// waitFor polls cond until it holds or waitLimit passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(waitLimit)
	for !cond() {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("waiting for %s", what)
		}
	}
}

// TestScrapeAfterTraffic: real DHCP, TFTP and HTTP traffic over loopback,
// then /metrics (served through the same instrumented handler) shows it by
// message type and outcome, range, route and code; promtool finds the
// exposition clean.
func TestScrapeAfterTraffic(t *testing.T) {
	dir := t.TempDir()
	boot := bytes.Repeat([]byte("0123456789abcdef"), 4096) // 64 KiB
	if err := os.WriteFile(filepath.Join(dir, "undionly.kpxe"), boot, 0o644); err != nil {
		t.Fatal(err)
	}
	dsrv, daddr := serveDHCP(t)
	tsrv, taddr := serveTFTP(t, dir)

	reg := New("test")
	reg.MustRegister(NewDHCP(dsrv, nil), NewTFTP(tsrv))
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", reg.Handler())
	mux.HandleFunc("GET /boot/{mac}/kernel", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, filepath.Join(dir, "undionly.kpxe"))
	})
	mux.HandleFunc("POST /api/clusters/{id}", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "broken", http.StatusInternalServerError)
	})
	mux.HandleFunc("GET /images/{name}/disk.img", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000000")
		w.Write(make([]byte, 1000))
		if err := http.NewResponseController(w).Flush(); err != nil { // through countingWriter's Unwrap
			t.Errorf("flush: %v", err)
		}
		panic(http.ErrAbortHandler) // the source failed mid-download
	})
	web := httptest.NewServer(reg.Instrument(mux))
	defer web.Close()

	dora(t, daddr, net.HardwareAddr{0x52, 0x54, 0, 0, 0, 0x42})
	waitFor(t, "three DHCP packets", func() bool { return dsrv.Stats().Received == 3 })
	if n, err := tftpGet(t, taddr, "undionly.kpxe"); err != nil || n != int64(len(boot)) {
		t.Fatalf("TFTP get: %d bytes, %v", n, err)
	}
	if _, err := tftpGet(t, taddr, "missing.efi"); err == nil {
		t.Fatal("TFTP get of a missing file worked")
	}
	waitFor(t, "the TFTP transfer to end", func() bool { return tsrv.Stats().Completed == 1 })
	for _, p := range []string{"/boot/52-54-00-00-00-42/kernel", "/boot/52-54-00-00-00-43/kernel", "/nowhere", "/boot/52-54-00-00-00-42/kernel?watch=true"} {
		resp, err := http.Get(web.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if resp, err := http.Get(web.URL + "/images/os/disk.img"); err == nil {
		if _, err := io.Copy(io.Discard, resp.Body); err == nil {
			t.Error("a download cut short read to the end")
		}
		resp.Body.Close()
	}
	resp, err := http.Post(web.URL+"/api/clusters/c1", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	// A download sent with sendfile can reach the client before its
	// handler returns and is counted: wait for the counts.
	var text string
	defer func() {
		if t.Failed() {
			t.Logf("last scrape:\n%s", text)
		}
	}()
	waitFor(t, "the downloads to be counted", func() bool {
		text = scrape(t, web.URL+"/metrics")
		return strings.Contains(text, "\n"+`rackboot_http_requests_total{code="200",method="GET",route="/boot/{mac}/kernel"} 2`+"\n") &&
			strings.Contains(text, "\n"+`rackboot_http_requests_total{code="200",method="GET",route="/boot/{mac}/kernel?watch"} 1`+"\n") &&
			strings.Contains(text, "\n"+`rackboot_http_requests_total{code="200",method="GET",route="/images/{name}/disk.img"} 1`+"\n")
	})
	wantLines(t, text,
		`rackboot_build_info{goversion="`+runtime.Version()+`",version="test"} 1`,
		`rackboot_dhcp_requests_total{outcome="replied",type="DISCOVER"} 1`,
		`rackboot_dhcp_requests_total{outcome="replied",type="REQUEST"} 1`,
		`rackboot_dhcp_requests_total{outcome="malformed",type="unknown"} 1`,
		`rackboot_dhcp_offers_total 1`,
		`rackboot_dhcp_acks_total 1`,
		`rackboot_dhcp_dropped_malformed_total 1`,
		`rackboot_dhcp_pool_addresses{range="10.99.0.100-10.99.0.199"} 100`,
		`rackboot_dhcp_pool_leased_addresses{range="10.99.0.100-10.99.0.199"} 1`,
		`rackboot_dhcp_pool_addresses{range="10.99.0.200-10.99.0.209"} 10`,
		`rackboot_dhcp_pool_leased_addresses{range="10.99.0.200-10.99.0.209"} 0`,
		`rackboot_tftp_transfers_started_total 1`,
		`rackboot_tftp_transfers_completed_total 1`,
		`rackboot_tftp_requests_rejected_total 1`,
		`rackboot_tftp_sent_bytes_total 65536`,
		`rackboot_tftp_transfers_active 0`,
		`rackboot_http_requests_total{code="200",method="GET",route="/boot/{mac}/kernel"} 2`,
		`rackboot_http_response_bytes_total{route="/boot/{mac}/kernel"} 131072`,
		`rackboot_http_request_duration_seconds_count{method="GET",route="/boot/{mac}/kernel"} 2`,
		`rackboot_http_requests_total{code="404",method="GET",route="unmatched"} 1`,
		`rackboot_http_requests_total{code="200",method="GET",route="/boot/{mac}/kernel?watch"} 1`,
		`rackboot_http_requests_total{code="500",method="POST",route="/api/clusters/{id}"} 1`,
		`rackboot_http_write_errors_total{route="/boot/{mac}/kernel"} 0`,
		`rackboot_http_write_errors_total{route="/images/{name}/disk.img"} 1`,
		`rackboot_http_response_bytes_total{route="/images/{name}/disk.img"} 1000`,
	)
	// The scrape itself is in flight (an earlier scrape's handler may be
	// returning still).
	if v, ok := sampleValue(text, "rackboot_http_requests_in_flight"); !ok || v < 1 {
		t.Errorf("rackboot_http_requests_in_flight = %v (present %v), want >= 1", v, ok)
	}
	for _, family := range []string{"go_goroutines", "go_memstats_heap_inuse_bytes", "process_resident_memory_bytes", "process_open_fds"} {
		if !strings.Contains(text, "\n# TYPE "+family+" ") {
			t.Errorf("/metrics lacks the %s family", family)
		}
	}
	if strings.Contains(text, "52-54-00-00-00-42") {
		t.Error("a raw path (with a MAC) became a label value")
	}
	promtooltest.CheckMetrics(t, text)
}
