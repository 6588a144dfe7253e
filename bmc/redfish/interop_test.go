package redfish_test

import (
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/rackboot/rackboot/bmc"
	"github.com/rackboot/rackboot/bmc/redfish"
)

// TestDMTFMockupServer runs the driver against DMTF's own Redfish mockup
// server (github.com/DMTF/Redfish-Mockup-Server, Python) serving its full,
// untrimmed public-rackmount1 mockup: a Redfish service nobody here wrote.
// Set RACKBOOT_DMTF_MOCKUP_SERVER to a checkout of that repository to run
// it; it is skipped otherwise. The server merges PATCHes and accepts
// actions without acting on them.
func TestDMTFMockupServer(t *testing.T) {
	dir := os.Getenv("RACKBOOT_DMTF_MOCKUP_SERVER")
	if dir == "" {
		t.Skip("RACKBOOT_DMTF_MOCKUP_SERVER not set (a checkout of DMTF/Redfish-Mockup-Server)")
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	addr := startMockupServer(t, python, dir)
	a, err := bmc.ParseAddress("redfish-virtualmedia+http://" + addr + "/redfish/v1/Systems/437XR1138R2")
	if err != nil {
		t.Fatal(err)
	}
	d := redfish.New(a, goodCreds, bmc.Options{Backoff: time.Millisecond})
	ctx := t.Context()

	if st, err := d.PowerState(ctx); err != nil || st != bmc.PowerOn {
		t.Fatalf("PowerState = %v, %v; want On", st, err)
	}
	inv, err := d.Inventory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	macs := []string{}
	for _, n := range inv.NICs {
		macs = append(macs, n.MAC)
	}
	if !slices.Contains(macs, "12:44:6a:3b:04:11") || slices.Contains(macs, "aa:bb:cc:dd:ee:fe") ||
		inv.CPU.Count != 2 || inv.MemoryGiB == 0 || inv.Manufacturer != "Contoso" {
		t.Errorf("inventory = %+v (MACs %v)", inv, macs)
	}
	// The mockup's CD slot has no actions and holds an image: the driver
	// PATCHes it empty and then PATCHes the new image in.
	if err := d.InsertMedia(ctx, isoURL); err != nil {
		t.Fatalf("InsertMedia: %v", err)
	}
	if err := d.SetBootOnce(ctx, bmc.BootCd, bmc.BootModeUEFI); err != nil {
		t.Fatalf("SetBootOnce: %v", err)
	}
	if err := d.Reset(ctx); err != nil {
		t.Fatalf("Reset: %v", err)
	}
	if err := d.EjectMedia(ctx); err != nil {
		t.Fatalf("EjectMedia: %v", err)
	}
	if err := d.SetBootOnce(ctx, bmc.BootUefiHTTP, bmc.BootModeUEFI); !errors.Is(err, bmc.ErrUnsupported) {
		t.Errorf("UefiHttp, which the mockup does not list = %v, want ErrUnsupported", err)
	}
	var sys struct {
		Boot map[string]any `json:"Boot"`
	}
	var cd struct {
		Inserted bool `json:"Inserted"`
	}
	getDoc(t, "http://"+addr+"/redfish/v1/Systems/437XR1138R2", &sys)
	getDoc(t, "http://"+addr+"/redfish/v1/Systems/437XR1138R2/VirtualMedia/CD1", &cd)
	if sys.Boot["BootSourceOverrideTarget"] != "Cd" || sys.Boot["BootSourceOverrideEnabled"] != "Once" || cd.Inserted {
		t.Errorf("server state: boot %v, CD inserted %v; want boot once Cd, CD empty", sys.Boot, cd.Inserted)
	}
}

func getDoc(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

// startMockupServer starts redfishMockupServer.py on a free loopback port
// (with a stand-in for grequests, which it imports only to push events) and
// waits until it answers.
func startMockupServer(t *testing.T, python, dir string) string {
	t.Helper()
	stub := t.TempDir()
	if err := os.WriteFile(filepath.Join(stub, "grequests.py"),
		[]byte("def post(*a, **k):\n    return None\n\ndef map(*a, **k):\n    return []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(python, filepath.Join(dir, "redfishMockupServer.py"), "-H", "127.0.0.1",
		"-p", strconv.Itoa(port), "-S", "-D", filepath.Join(dir, "public-rackmount1"))
	cmd.Env = append(os.Environ(), "PYTHONPATH="+stub)
	cmd.Dir = t.TempDir()
	logFile, err := os.Create(filepath.Join(cmd.Dir, "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		logFile.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logFile.Name())
			t.Logf("mockup server output (last 4 KiB):\n%s", b[max(0, len(b)-4096):])
		}
	})
	addr := "127.0.0.1:" + strconv.Itoa(port)
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/redfish/v1/")
		if err == nil {
			resp.Body.Close()
			return addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("mockup server did not answer: %v", err)
		}
		select {
		case <-t.Context().Done():
			t.Fatal(t.Context().Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}
