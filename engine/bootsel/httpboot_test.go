package bootsel_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cavaliergopher/cpio"

	"github.com/rackboot/rackboot/boot/discovery"
	"github.com/rackboot/rackboot/boot/httpboot"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/bootsel"
	"github.com/rackboot/rackboot/engine/models"
)

// serve puts a real boot/httpboot handler in front of e's Selector.
func serve(t *testing.T, e *env) *httptest.Server {
	t.Helper()
	h, err := httpboot.New(httpboot.Options{BaseURL: service, Boot: e.sel,
		Logger: slog.New(slog.NewJSONHandler(e.logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, srv *httptest.Server, path string) (int, []byte) {
	t.Helper()
	resp, err := srv.Client().Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, body
}

// hexhyp writes a MAC as iPXE's ${mac:hexhyp}.
func hexhyp(m string) string { return strings.ReplaceAll(m, ":", "-") }

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n got: %s\nwant: %s", name, got, want)
	}
}

// servedIgn splits a served initrd after the base (and its padding) and
// returns the config.ign of the gzip cpio appendix.
func servedIgn(t *testing.T, served []byte, base []byte) []byte {
	t.Helper()
	if !bytes.HasPrefix(served, base) {
		t.Fatal("the served initrd does not start with the base initrd")
	}
	split := len(base) + (4-len(base)%4)%4
	zr, err := gzip.NewReader(bytes.NewReader(served[split:]))
	if err != nil {
		t.Fatalf("no gzip appendix after the base initrd: %v", err)
	}
	zr.Multistream(false)
	cr := cpio.NewReader(zr)
	for {
		hdr, err := cr.Next()
		if err != nil {
			t.Fatalf("no config.ign in the appendix: %v", err)
		}
		if hdr.Name == "config.ign" {
			b, err := io.ReadAll(cr)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
}

func TestHTTPBootRegisteredHost(t *testing.T) {
	e := newEnv(t, nil)
	srv := serve(t, e)
	code, script := get(t, srv, "/boot/"+hexhyp(hostMAC)+"/script.ipxe")
	if code != http.StatusOK {
		t.Fatalf("script: %d %s", code, script)
	}
	golden(t, "registered-host.ipxe", script)
	code, kernel := get(t, srv, "/boot/"+hexhyp(hostMAC)+"/kernel")
	if code != http.StatusOK || !bytes.Equal(kernel, e.kernelData) {
		t.Fatalf("kernel: %d, %d bytes", code, len(kernel))
	}
	code, initrd := get(t, srv, "/boot/"+hexhyp(hostMAC)+"/initrd")
	if code != http.StatusOK {
		t.Fatalf("initrd: %d", code)
	}
	checkAgentConf(t, e, servedIgn(t, initrd, e.baseRD), ieB)
}

func TestHTTPBootStrangers(t *testing.T) {
	e := newEnv(t, nil)
	srv := serve(t, e)
	if code, body := get(t, srv, "/boot/"+hexhyp(stranger)+"/script.ipxe"); code != http.StatusNotFound {
		t.Fatalf("stranger without a default: %d %s, want 404", code, body)
	}
	if code, _ := get(t, srv, "/boot/"+hexhyp(stranger)+"/initrd"); code != http.StatusNotFound {
		t.Fatalf("stranger's initrd without a default: %d, want 404", code)
	}
	e = newEnv(t, func(o *bootsel.Options) { o.DefaultInfraEnv = "rack-a" })
	srv = serve(t, e)
	code, script := get(t, srv, "/boot/"+strings.ToUpper(stranger)+"/script.ipxe")
	if code != http.StatusOK || !strings.Contains(string(script), "/boot/"+hexhyp(stranger)+"/initrd") {
		t.Fatalf("stranger with a default: %d %s", code, script)
	}
	_, initrd := get(t, srv, "/boot/"+hexhyp(stranger)+"/initrd")
	files := checkAgentConf(t, e, servedIgn(t, initrd, e.baseRD), ieA)
	if files[discovery.PullSecretPath] != pullSec {
		t.Error("the default infra-env's pull secret is missing")
	}
}

func TestHTTPBootStaticNetwork(t *testing.T) {
	e := newEnv(t, nil)
	srv := serve(t, e)
	_, initrd := get(t, srv, "/boot/"+hexhyp(nmMAC)+"/initrd")
	files := checkAgentConf(t, e, servedIgn(t, initrd, e.baseRD), ieA)
	checkStaticNetwork(t, files, nmMAC)
	// A host of the same infra-env that no NMState config lists gets none.
	e.apply(t, &engine.RegisterHost{Host: engine.Host{ID: "dddddddd-0000-4000-8000-000000000004", InfraEnvID: ieA,
		Status: "known", Inventory: inventory(stranger)}})
	_, initrd = get(t, srv, "/boot/"+hexhyp(stranger)+"/initrd")
	for path := range checkAgentConf(t, e, servedIgn(t, initrd, e.baseRD), ieA) {
		if strings.HasPrefix(path, "/etc/assisted/network/") {
			t.Errorf("a host without static networking got %s", path)
		}
	}
}

func TestHTTPBootInstalledHostExits(t *testing.T) {
	e := newEnv(t, nil)
	srv := serve(t, e)
	e.apply(t, &engine.SetHostStatus{ID: hostA, Status: "installed"})
	code, script := get(t, srv, "/boot/"+hexhyp(hostMAC)+"/script.ipxe")
	if code != http.StatusOK {
		t.Fatalf("script: %d %s", code, script)
	}
	golden(t, "installed-host.ipxe", script)
}

func TestHTTPBootInfraEnvChangeReachesNextInitrd(t *testing.T) {
	e := newEnv(t, nil)
	srv := serve(t, e)
	path := "/boot/" + hexhyp(nmMAC) + "/initrd"
	_, before := get(t, srv, path)
	_, same := get(t, srv, path)
	if !bytes.Equal(before, same) {
		t.Fatal("two downloads of an unchanged host's initrd differ")
	}
	key := sshKeyB
	e.apply(t, &engine.UpdateInfraEnv{ID: ieA, Patch: engine.InfraEnvPatch{SSHAuthorizedKey: &key}})
	_, after := get(t, srv, path)
	ign := servedIgn(t, after, e.baseRD)
	if !strings.Contains(string(ign), "IBkPOR8lPeGXRxrUd4OnJcXf1iV2DsTRnsHgy4CIUHE7") {
		t.Fatal("the initrd after the SSH key change does not carry the new key")
	}
	checkAgentConf(t, e, ign, ieA)
}

// Boot-order control: once the installation reached Rebooting (the image
// and Ignition are on the disk) the script says exit; before, and after a
// reset, the host boots discovery.
func TestHTTPBootRebootingHostExits(t *testing.T) {
	e := newEnv(t, nil)
	srv := serve(t, e)
	script := func() []byte {
		code, s := get(t, srv, "/boot/"+hexhyp(hostMAC)+"/script.ipxe")
		if code != http.StatusOK {
			t.Fatalf("script: %d %s", code, s)
		}
		return s
	}
	stage := func(s string) {
		e.apply(t, &engine.UpdateHost{ID: hostA, Patch: engine.HostPatch{Progress: &engine.Progress{CurrentStage: s}}})
	}
	stage(string(models.HostStageWritingImageToDisk))
	if s := script(); bytes.Contains(s, []byte("exit")) {
		t.Fatalf("a host writing its disk exits:\n%s", s)
	}
	for _, st := range []models.HostStage{models.HostStageRebooting, models.HostStageConfiguring, models.HostStageDone} {
		stage(string(st))
		golden(t, "rebooting-host.ipxe", script())
	}
	stage("")
	if s := script(); bytes.Contains(s, []byte("exit")) {
		t.Fatalf("a reset host exits:\n%s", s)
	}
}

// The selector serves an image set's disk image to the boot server.
func TestHTTPBootDiskImage(t *testing.T) {
	e := newEnv(t, nil)
	data := []byte("a raw disk image")
	path := filepath.Join(t.TempDir(), "disk.img")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	e.apply(t, &engine.PutImageSet{ImageSet: engine.ImageSet{Name: "os-2", Profile: "p",
		DiskImage: engine.DiskImage{Path: path, SHA256: "abc", Size: int64(len(data))}}})
	h, err := httpboot.New(httpboot.Options{BaseURL: "http://10.0.0.1:8080", Boot: e.sel, Images: e.sel})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	if code, body := get(t, srv, "/images/os-2/disk.img"); code != http.StatusOK || !bytes.Equal(body, data) {
		t.Errorf("disk image: %d %q", code, body)
	}
	if code, _ := get(t, srv, "/images/nope/disk.img"); code != http.StatusNotFound {
		t.Errorf("unknown image set: %d", code)
	}
}
