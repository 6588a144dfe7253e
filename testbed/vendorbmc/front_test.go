package vendorbmc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rackboot/rackboot/bmc"
	bmcredfish "github.com/rackboot/rackboot/bmc/redfish"
	"github.com/rackboot/rackboot/testbed/redfish"
	"github.com/rackboot/rackboot/testbed/vendorbmc"
)

// machine records how the emulator starts it.
type machine struct {
	mu    sync.Mutex
	on    bool
	cd    bool
	calls []string
}

func (m *machine) Running(context.Context) bool { m.mu.Lock(); defer m.mu.Unlock(); return m.on }

func (m *machine) Start(_ context.Context, o redfish.StartOptions) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.on = true
	m.calls = append(m.calls, fmt.Sprintf("start boot=%s once=%t cd=%t", o.Boot, o.Once, o.CD != ""))
	return nil
}

func (m *machine) Stop(context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.on = false
	m.calls = append(m.calls, "stop")
	return nil
}

func (m *machine) Shutdown(ctx context.Context) error { return m.Stop(ctx) }

func (m *machine) Reset(context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls = append(m.calls, "reset")
	return nil
}

func (m *machine) ChangeMedium(context.Context, string) error { return nil }

func (m *machine) history() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return strings.Join(m.calls, "; ")
}

// The testbed's emulator behind each vendor's personality, driven by
// rackboot's driver as the BMH controller drives it: the machine starts
// from the virtual CD with the image in it, and after the install from
// its disk; a graceful power-off works without GracefulShutdown (iLO).
func TestFrontDrivesTheEmulator(t *testing.T) {
	iso := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "DISCOVERY-ISO")
	}))
	t.Cleanup(iso.Close)
	// What each vendor's path leaves in Taken (the driver must take it).
	taken := map[string][]string{
		"dell-idrac9": {"idrac: OEM boot-once VCD-DVD through /redfish/v1/Managers/vm1/Actions/Oem/EID_674_Manager.ImportSystemConfiguration"},
		"hpe-ilo5": {"ilo: InsertMedia with Oem.Hpe.BootOnNextServerReset on /redfish/v1/Managers/vm1/VirtualMedia/Cd",
			"ilo: PushPowerButton on vm1"},
		"supermicro-x12": {"supermicro: InsertMedia on the unlisted slot /redfish/v1/Managers/vm1/VirtualMedia/CD1",
			"supermicro: boot once UefiCd on vm1"},
		"lenovo-xcc": {"xcc: slot /redfish/v1/Managers/vm1/VirtualMedia/Cd PATCHed with an image (no InsertMedia)"},
	}
	for _, vendor := range []string{"dell-idrac9", "hpe-ilo5", "supermicro-x12", "lenovo-xcc"} {
		t.Run(vendor, func(t *testing.T) {
			m := &machine{}
			svc, err := redfish.New(redfish.Config{Username: vendorbmc.User, Password: vendorbmc.Password, MediaDir: t.TempDir()},
				redfish.System{ID: "vm1", Name: "vm1", UUID: "d1e5a3c0-0000-4000-8000-000000000001", MAC: "52:54:00:ab:cd:01",
					UEFI: true, Machine: m})
			if err != nil {
				t.Fatal(err)
			}
			front := vendorbmc.Front(svc, vendor)
			srv := httptest.NewTLSServer(front)
			t.Cleanup(srv.Close)
			a, err := bmc.ParseAddress("redfish-virtualmedia://" + strings.TrimPrefix(srv.URL, "https://") + "/redfish/v1/Systems/vm1")
			if err != nil {
				t.Fatal(err)
			}
			d := bmcredfish.New(a, bmc.Credentials{Username: vendorbmc.User, Password: vendorbmc.Password, InsecureSkipVerify: true},
				bmc.Options{Backoff: time.Millisecond, PollInterval: time.Millisecond, Attempts: 1})
			ctx := t.Context()
			for _, step := range []func() error{
				func() error { return d.InsertMedia(ctx, iso.URL+"/discovery.iso") },
				func() error { return d.SetBootOnce(ctx, bmc.BootCd, bmc.BootModeUEFI) },
				func() error { return d.PowerOn(ctx) },
				func() error { return d.EjectMedia(ctx) },
				func() error { return d.SetBootOnce(ctx, bmc.BootHdd, bmc.BootModeUEFI) },
				func() error { return d.Reset(ctx) },
				func() error { return d.GracefulOff(ctx) },
			} {
				if err := step(); err != nil {
					t.Fatalf("%v (machine: %s)", err, m.history())
				}
			}
			if got, want := m.history(), "start boot=Cd once=true cd=true; stop; start boot=Hdd once=true cd=false; stop"; got != want {
				t.Errorf("machine = %q, want %q", got, want)
			}
			got := strings.Join(front.Taken(), "\n")
			for _, want := range taken[vendor] {
				if !strings.Contains(got, want) {
					t.Errorf("Taken has no %q:\n%s", want, got)
				}
			}
		})
	}
	if vendorbmc.Front(http.NotFoundHandler(), "ami-megarac") != nil {
		t.Error("Front of a vendor without a personality")
	}
}

// Supermicro in front of the emulator: the System has no VirtualMedia, the
// manager's collection lists no slot, the CD slot is CD1 (the emulator's
// Cd is not there); iLO and the XCC keep theirs under the Manager too.
func TestFrontMediaLayout(t *testing.T) {
	svc, err := redfish.New(redfish.Config{Username: vendorbmc.User, Password: vendorbmc.Password, MediaDir: t.TempDir()},
		redfish.System{ID: "vm1", Name: "vm1", UUID: "d1e5a3c0-0000-4000-8000-000000000001", MAC: "52:54:00:ab:cd:01",
			UEFI: true, Machine: &machine{}})
	if err != nil {
		t.Fatal(err)
	}
	get := func(h http.Handler, p string) (int, map[string]any) {
		req := httptest.NewRequest("GET", p, nil)
		req.SetBasicAuth(vendorbmc.User, vendorbmc.Password)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var doc map[string]any
		_ = json.Unmarshal(rec.Body.Bytes(), &doc)
		return rec.Code, doc
	}
	sm := vendorbmc.Front(svc, "supermicro-x12")
	if _, doc := get(sm, "/redfish/v1/Systems/vm1"); doc["VirtualMedia"] != nil {
		t.Errorf("Supermicro System has VirtualMedia %v", doc["VirtualMedia"])
	}
	if code, _ := get(sm, "/redfish/v1/Systems/vm1/VirtualMedia"); code != 404 {
		t.Errorf("Supermicro System VirtualMedia = %d, want 404", code)
	}
	if _, doc := get(sm, "/redfish/v1/Managers/vm1/VirtualMedia"); len(doc["Members"].([]any)) != 0 {
		t.Errorf("Supermicro collection lists %v, want no slot", doc["Members"])
	}
	if code, _ := get(sm, "/redfish/v1/Managers/vm1/VirtualMedia/Cd"); code != 404 {
		t.Errorf("Supermicro slot Cd = %d, want 404", code)
	}
	code, doc := get(sm, "/redfish/v1/Managers/vm1/VirtualMedia/CD1")
	actions, _ := doc["Actions"].(map[string]any)
	insert, _ := actions["#VirtualMedia.InsertMedia"].(map[string]any)
	if code != 200 || doc["Id"] != "CD1" || doc["@odata.id"] != "/redfish/v1/Managers/vm1/VirtualMedia/CD1" ||
		insert["target"] != "/redfish/v1/Managers/vm1/VirtualMedia/CD1/Actions/VirtualMedia.InsertMedia" {
		t.Errorf("Supermicro slot CD1 = %d %v", code, doc)
	}
	for _, vendor := range []string{"hpe-ilo5", "lenovo-xcc"} {
		f := vendorbmc.Front(svc, vendor)
		if _, doc := get(f, "/redfish/v1/Systems/vm1"); doc["VirtualMedia"] != nil {
			t.Errorf("%s System has VirtualMedia %v", vendor, doc["VirtualMedia"])
		}
		if _, doc := get(f, "/redfish/v1/Managers/vm1/VirtualMedia"); len(doc["Members"].([]any)) != 1 {
			t.Errorf("%s collection = %v, want its slot", vendor, doc["Members"])
		}
	}
}
