package e2e

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rackboot/rackboot/testbed/netns"
	"github.com/rackboot/rackboot/testbed/qemu"
	"github.com/rackboot/rackboot/testbed/redfish"
	"github.com/rackboot/rackboot/testbed/vendorbmc"
)

// BMC addresses inside the test namespace: the plain emulator, and the
// same emulator on a second port that only the BMH with the wrong password
// talks to (so its requests can be counted apart). A VM with a vendor
// personality has its own BMC address (bmhVM.bmc).
const (
	bmcAddr      = "127.0.0.1:8443"
	bmcWrongAddr = "127.0.0.1:8444"
	bmcUser      = "admin"
	bmcPassword  = "Testbed-BMC-pw-7f3a"
)

// bmhVM is one VM behind the emulator and its BareMetalHost.
type bmhVM struct {
	id     string // the Redfish System id
	name   string // BMH name, DHCP hostname and hostname annotation
	mac    string
	ip     string
	tap    string
	scheme string // BMC address scheme
	pxe    bool   // the firmware may PXE boot from the NIC (else: virtual media only)
	ie     string // the infra-env its BMH is labelled with (one SNO cluster each)
	// vendor, if set, is the personality (testbed/vendorbmc.Front) in
	// front of the emulator on the VM's own BMC address bmc, and taken
	// what the vendor's path leaves in Fronted.Taken.
	vendor string
	bmc    string
	taken  []string
}

// addr is the BMC address the VM's BareMetalHost is written with.
func (v bmhVM) addr() string {
	host := bmcAddr
	if v.vendor != "" {
		host = v.bmc
	}
	return v.scheme + "://" + host + "/redfish/v1/Systems/" + v.id
}

// bmhVMs (TestBMCVirtualMediaAndPXE): vm1 is a Dell iDRAC 9 and boots the
// discovery ISO from virtual media; it cannot PXE at all (no option ROM,
// OVMF's PXE off). vm2 is behind the plain emulator and is told to PXE
// boot once. All VMs are UEFI: the testbed OS disk image boots through
// systemd-boot.
var bmhVMs = []bmhVM{
	{id: "vm1", name: "bmh-idrac", mac: "52:54:00:00:b0:01", ip: "10.99.0.31", tap: "tap0", scheme: "idrac-virtualmedia", ie: "bmc-a",
		vendor: "dell-idrac9", bmc: "127.0.0.1:8445",
		taken: []string{"idrac: OEM boot-once VCD-DVD through /redfish/v1/Managers/vm1/Actions/Oem/EID_674_Manager.ImportSystemConfiguration"}},
	{id: "vm2", name: "bmh-pxe", mac: "52:54:00:00:b0:02", ip: "10.99.0.32", tap: "tap1", scheme: "redfish", pxe: true, ie: "bmc-b"},
}

// vendorVMs (TestBMCVendorsILOSupermicro): an HPE iLO 5 and a Supermicro
// X12, both booting the discovery ISO from virtual media, with the
// addresses metal3 users write for them.
var vendorVMs = []bmhVM{
	{id: "vm3", name: "bmh-ilo", mac: "52:54:00:00:b0:03", ip: "10.99.0.33", tap: "tap0", scheme: "ilo5-virtualmedia", ie: "bmc-c",
		vendor: "hpe-ilo5", bmc: "127.0.0.1:8446",
		taken: []string{"ilo: InsertMedia with Oem.Hpe.BootOnNextServerReset on /redfish/v1/Managers/vm3/VirtualMedia/Cd"}},
	{id: "vm4", name: "bmh-supermicro", mac: "52:54:00:00:b0:04", ip: "10.99.0.34", tap: "tap1", scheme: "redfish-virtualmedia", ie: "bmc-d",
		vendor: "supermicro-x12", bmc: "127.0.0.1:8447",
		taken: []string{"supermicro: InsertMedia on the unlisted slot /redfish/v1/Managers/vm4/VirtualMedia/CD1",
			"supermicro: boot once UefiCd on vm4"}},
}

// lenovoVMs (TestBMCVendorLenovo): a Lenovo XCC booting the discovery ISO
// from virtual media.
var lenovoVMs = []bmhVM{
	{id: "vm5", name: "bmh-xcc", mac: "52:54:00:00:b0:05", ip: "10.99.0.35", tap: "tap0", scheme: "redfish-virtualmedia", ie: "bmc-e",
		vendor: "lenovo-xcc", bmc: "127.0.0.1:8448",
		taken: []string{"xcc: slot /redfish/v1/Managers/vm5/VirtualMedia/Cd PATCHed with an image (no InsertMedia)"}},
}

// noPXE turns off OVMF's network boot (the NIC has no option ROM anyway).
var noPXE = []string{"-fw_cfg", "name=opt/org.tianocore/IPv4PXESupport,string=n",
	"-fw_cfg", "name=opt/org.tianocore/IPv6PXESupport,string=n"}

// bmhDiskGiB is the size of each VM's (sparse) disk.
const bmhDiskGiB = 24

// bmcBed is the in-process Redfish emulator with its QEMU machines.
type bmcBed struct {
	svc      *redfish.Service
	machines map[string]*redfish.QEMUMachine
	disks    map[string]string
	fronts   map[string]*vendorbmc.Fronted // by VM id, for the VMs with a vendor
	wrong    *bmcRecorder                  // requests on bmcWrongAddr
	log      *syncBuffer
}

// bmcRecorder counts the requests of one listener, with their times.
type bmcRecorder struct {
	mu    sync.Mutex
	times []time.Time
	lines []string
	next  http.Handler
}

func (r *bmcRecorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	r.times = append(r.times, time.Now())
	r.lines = append(r.lines, req.Method+" "+req.URL.Path)
	r.mu.Unlock()
	r.next.ServeHTTP(w, req)
}

func (r *bmcRecorder) requests() ([]time.Time, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]time.Time(nil), r.times...), append([]string(nil), r.lines...)
}

// startBMC starts the emulator in ns for vms (UEFI, 2 CPUs, 1.5 GiB, a
// sparse disk each), listening with TLS on bmcAddr and bmcWrongAddr, and
// with each VM's vendor personality in front on the VM's own address.
// Virtual media are downloaded from inside the namespace.
func startBMC(t *testing.T, ctx context.Context, ns *netns.NS, vms []bmhVM) *bmcBed {
	t.Helper()
	dir := t.TempDir()
	b := &bmcBed{machines: map[string]*redfish.QEMUMachine{}, disks: map[string]string{},
		fronts: map[string]*vendorbmc.Fronted{}, log: &syncBuffer{}}
	var systems []redfish.System
	for _, v := range vms {
		disk := filepath.Join(dir, v.id+".img")
		f, err := os.Create(disk)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(bmhDiskGiB << 30); err != nil {
			t.Fatal(err)
		}
		f.Close()
		extra := []string{"-smp", "2"}
		if !v.pxe {
			extra = append(extra, noPXE...)
		}
		m, err := redfish.NewQEMU(ns, qemu.Config{Firmware: qemu.UEFI, MAC: v.mac, Tap: v.tap,
			Dir: filepath.Join(dir, v.id), MemoryMB: 1536, Extra: extra}, disk)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, v.id), 0o755); err != nil {
			t.Fatal(err)
		}
		b.machines[v.id], b.disks[v.id] = m, disk
		systems = append(systems, redfish.System{ID: v.id, Name: v.name, MAC: v.mac, Machine: m, UEFI: true,
			UUID: fmt.Sprintf("7261636b-626f-4f74-8000-0000000000%s", v.id[2:]+"0")})
	}
	media := filepath.Join(dir, "media")
	if err := os.Mkdir(media, 0o755); err != nil {
		t.Fatal(err)
	}
	client := nsHTTPClient(ns)
	client.Timeout = 10 * time.Minute
	svc, err := redfish.New(redfish.Config{Username: bmcUser, Password: bmcPassword, MediaDir: media, Client: client,
		Logger: slog.New(slog.NewTextHandler(b.log, nil))}, systems...)
	if err != nil {
		t.Fatal(err)
	}
	b.svc = svc
	b.wrong = &bmcRecorder{next: svc}
	serveBMC(t, ctx, ns, bmcAddr, svc)
	serveBMC(t, ctx, ns, bmcWrongAddr, b.wrong)
	for _, v := range vms {
		if v.vendor == "" {
			continue
		}
		// The emulator as that vendor's BMC (testbed/vendorbmc.Front).
		if b.fronts[v.id] = vendorbmc.Front(svc, v.vendor); b.fronts[v.id] == nil {
			t.Fatalf("%s: no vendor personality %s", v.name, v.vendor)
		}
		serveBMC(t, ctx, ns, v.bmc, b.fronts[v.id])
	}
	t.Cleanup(func() {
		for id, m := range b.machines {
			if t.Failed() {
				if vm := m.VM(); vm != nil {
					t.Logf("--- %s console (last 60 lines) ---\n%s\n--- qemu stderr ---\n%s", id, vm.ConsoleTail(60), vm.Stderr())
				}
			}
			m.Close()
		}
		if t.Failed() {
			t.Logf("--- BMC emulator log ---\n%s", qemu.Tail(b.log.String(), 60))
			for id, f := range b.fronts {
				t.Logf("--- %s vendor paths taken ---\n%s", id, strings.Join(f.Taken(), "\n"))
			}
		}
	})
	return b
}

// serveBMC serves h with a self-signed certificate on addr inside ns.
func serveBMC(t *testing.T, ctx context.Context, ns *netns.NS, addr string, h http.Handler) {
	t.Helper()
	var ln net.Listener
	if err := ns.Do(func() (err error) { ln, err = net.Listen("tcp4", addr); return err }); err != nil {
		t.Fatalf("BMC listen %s: %v", addr, err)
	}
	cert, err := redfish.SelfSigned("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second,
		TLSConfig:   &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}},
		BaseContext: func(net.Listener) context.Context { return ctx }}
	go srv.ServeTLS(ln, "", "")
	t.Cleanup(func() { srv.Close() })
}

// console is what VM id printed since its last power-on ("" before).
func (b *bmcBed) console(id string) string {
	if vm := b.machines[id].VM(); vm != nil {
		return vm.Console()
	}
	return ""
}

// bmhManifest is the metal3 file `rackbootctl create bmh -f` takes: per
// VM a Secret and a BareMetalHost labelled with its infra-env, plus, with
// wrong, one BMH whose Secret holds a wrong password (on the second BMC
// port).
func bmhManifest(vms []bmhVM, wrong bool) string {
	var b strings.Builder
	secret := func(name, user, pass string) {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: %s\n  namespace: testbed\ntype: Opaque\nstringData:\n  username: %s\n  password: %s\n", name, user, pass)
	}
	host := func(name, address, mac, secretName, infraEnv string) {
		fmt.Fprintf(&b, `---
apiVersion: metal3.io/v1alpha1
kind: BareMetalHost
metadata:
  name: %s
  namespace: testbed
  labels:
    infraenvs.agent-install.openshift.io: %s
  annotations:
    inspect.metal3.io: disabled
    bmac.agent-install.openshift.io/role: master
    bmac.agent-install.openshift.io/hostname: %s
    bmac.agent-install.openshift.io.agent-label.rack: r1
spec:
  automatedCleaningMode: disabled
  online: true
  bootMACAddress: %s
  bmc:
    address: %s
    credentialsName: %s
    disableCertificateVerification: True
  rootDeviceHints:
    minSizeGigabytes: 20
`, name, infraEnv, name, mac, address, secretName)
	}
	b.WriteString("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: testbed\n")
	for _, v := range vms {
		secret(v.name+"-bmc-secret", bmcUser, bmcPassword)
		host(v.name, v.addr(), v.mac, v.name+"-bmc-secret", v.ie)
	}
	if !wrong {
		return b.String()
	}
	secret("bmh-wrong-bmc-secret", bmcUser, "not-the-password")
	host("bmh-wrong", "redfish-virtualmedia://"+bmcWrongAddr+"/redfish/v1/Systems/vm1", "52:54:00:00:b0:09",
		"bmh-wrong-bmc-secret", vms[0].ie)
	return b.String()
}
