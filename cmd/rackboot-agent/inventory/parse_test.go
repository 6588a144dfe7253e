package inventory

import (
	"context"
	"encoding/binary"
	"errors"
	"net/netip"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/rackboot/rackboot/engine/models"
)

func TestParseCPUInfo(t *testing.T) {
	ci, err := ParseCPUInfo([]byte("processor\t: 0\nmodel name\t: Xeon\ncpu MHz\t\t: 1200.5\nflags\t\t: fpu hypervisor\n\nprocessor\t: 1\nmodel name\t: Xeon\ncpu MHz\t\t: 3400.000\nflags\t\t: fpu hypervisor\n"))
	if err != nil {
		t.Fatal(err)
	}
	if ci.Processors != 2 || ci.ModelName != "Xeon" || ci.MHz != 3400 || !ci.Hypervisor || len(ci.Flags) != 2 {
		t.Errorf("got %+v", ci)
	}
	for _, bad := range []string{"", "\n\n", "model name: x\n", "processor 0\n"} {
		if _, err := ParseCPUInfo([]byte(bad)); !errors.Is(err, ErrParse) {
			t.Errorf("ParseCPUInfo(%q) err = %v, want ErrParse", bad, err)
		}
	}
}

func TestParseMemInfo(t *testing.T) {
	m, err := ParseMemInfo([]byte("MemTotal:  1000 kB\nHugePages_Total:   7\n"))
	if err != nil {
		t.Fatal(err)
	}
	if m["MemTotal"] != 1024000 || m["HugePages_Total"] != 7 {
		t.Errorf("got %v", m)
	}
	for _, bad := range []string{"MemTotal 1000 kB\n", "MemTotal: lots kB\n", "MemTotal: 1 MB\n", "MemTotal: -1 kB\n",
		"MemTotal:\n", "MemTotal: 99999999999999999 kB\n"} {
		if _, err := ParseMemInfo([]byte(bad)); !errors.Is(err, ErrParse) {
			t.Errorf("ParseMemInfo(%q) err = %v, want ErrParse", bad, err)
		}
	}
}

func TestParseRoutes4(t *testing.T) {
	hdr := "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
	le := func(a string) string {
		b := netip.MustParseAddr(a).As4()
		return hexU32(binary.NativeEndian.Uint32(b[:]))
	}
	in := hdr +
		"eth0\t" + le("0.0.0.0") + "\t" + le("192.0.2.1") + "\t0003\t0\t0\t100\t00000000\t0\t0\t0\n" +
		"eth0\t" + le("192.0.2.0") + "\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n" +
		"eth0\t" + le("198.51.100.0") + "\t00000000\t0000\t0\t0\t0\t00FFFFFF\t0\t0\t0\n" + // down
		"lo\t" + le("127.0.0.0") + "\t00000000\t0001\t0\t0\t0\t000000FF\t0\t0\t0\n"
	rs, err := ParseRoutes4([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []models.Route{
		{Interface: "eth0", Destination: "0.0.0.0", Gateway: "192.0.2.1", Family: 2, Metric: 100},
		{Interface: "eth0", Destination: "192.0.2.0", Family: 2},
	}
	if len(rs) != len(want) {
		t.Fatalf("got %d routes: %+v", len(rs), rs)
	}
	for i := range want {
		if *rs[i] != want[i] {
			t.Errorf("route %d = %+v, want %+v", i, *rs[i], want[i])
		}
	}
	for _, bad := range []string{hdr + "eth0 0 0 3\n", hdr + "eth0 XXXXXXXX 00000000 0001 0 0 0 00000000\n",
		hdr + "eth0 00000000 00000000 0001 0 0 x 00000000\n"} {
		if _, err := ParseRoutes4([]byte(bad)); !errors.Is(err, ErrParse) {
			t.Errorf("ParseRoutes4(%q) err = %v, want ErrParse", bad, err)
		}
	}
}

func hexU32(v uint32) string {
	const digits = "0123456789ABCDEF"
	b := make([]byte, 8)
	for i := 7; i >= 0; i-- {
		b[i] = digits[v&0xF]
		v >>= 4
	}
	return string(b)
}

func TestParseRoutes6(t *testing.T) {
	in := "20010db8000000000000000000000000 20 00000000000000000000000000000000 00 fe800000000000000000000000000001 00000064 00000001 00000000 00000003     eth0\n"
	rs, err := ParseRoutes6([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || *rs[0] != (models.Route{Interface: "eth0", Destination: "2001:db8::", Gateway: "fe80::1", Family: 10, Metric: 100}) {
		t.Errorf("got %+v", rs)
	}
	if _, err := ParseRoutes6([]byte("2001 20 eth0\n")); !errors.Is(err, ErrParse) {
		t.Errorf("short line: err = %v", err)
	}
}

// smbios builds a table of type 17 devices with the given raw Size words
// (and Extended Size) followed by the end-of-table structure.
func smbios(sizes ...[2]uint32) []byte {
	var b []byte
	for _, s := range sizes {
		body := make([]byte, 0x28)
		body[0], body[1] = 17, 0x28
		binary.LittleEndian.PutUint16(body[0x0C:], uint16(s[0]))
		binary.LittleEndian.PutUint32(body[0x1C:], s[1])
		b = append(append(b, body...), 'D', 0, 0)
	}
	return append(b, 127, 4, 0, 0, 0, 0)
}

func TestParseSMBIOSMemory(t *testing.T) {
	cases := []struct {
		table []byte
		want  int64
	}{
		{smbios([2]uint32{2048, 0}, [2]uint32{0, 0}, [2]uint32{0xFFFF, 0}), 2 << 30},
		{smbios([2]uint32{0x8000 | 512, 0}), 512 << 10},
		{smbios([2]uint32{0x7FFF, 64 * 1024}), 64 << 30},
		{[]byte{127, 4, 0, 0, 0, 0}, 0},
	}
	for i, c := range cases {
		got, err := ParseSMBIOSMemory(c.table)
		if err != nil || got != c.want {
			t.Errorf("case %d: got %d, %v; want %d", i, got, err, c.want)
		}
	}
	for _, bad := range [][]byte{{17, 2, 0, 0}, {17, 0x28, 0}, smbios([2]uint32{1, 0})[:0x28]} {
		if _, err := ParseSMBIOSMemory(bad); !errors.Is(err, ErrParse) {
			t.Errorf("ParseSMBIOSMemory(% x) err = %v, want ErrParse", bad, err)
		}
	}
}

func TestParseResolvConf(t *testing.T) {
	d := ParseResolvConf([]byte("# c\n;x\nnameserver 192.0.2.53\nnameserver fe80::1%eth0\nnameserver bogus\ndomain a.example\nsearch b.example c.example\n"))
	if len(d.Nameservers) != 2 || d.Nameservers[1].Zone() != "eth0" || strings.Join(d.Search, ",") != "b.example,c.example" {
		t.Errorf("got %+v", d)
	}
}

func TestReplaceForbiddenHostname(t *testing.T) {
	ifs := []*models.Interface{
		{Name: "veth0", Type: "device", MacAddress: "0e:00:00:00:00:01", IPV4Addresses: []string{"10.0.0.1/8"}},
		{Name: "eth1", Type: "physical", MacAddress: "52:54:00:AA:00:02", IPV6Addresses: []string{"2001:db8::2/64"}},
		{Name: "eth0", Type: "physical", MacAddress: "52:54:00:aa:00:01", IPV4Addresses: []string{"127.0.0.2/8"}},
	}
	if got := ReplaceForbiddenHostname("localhost", ifs); got != "52-54-00-aa-00-02" {
		t.Errorf("got %q", got)
	}
	if got := ReplaceForbiddenHostname("node-1", ifs); got != "node-1" {
		t.Errorf("got %q", got)
	}
	if got := ReplaceForbiddenHostname("localhost.localdomain", ifs[:1]); got != "localhost.localdomain" {
		t.Errorf("got %q", got)
	}
}

// TestCollectReportsBrokenParts checks that a part that cannot be read is
// named in the error while the rest of the inventory is still filled in.
func TestCollectReportsBrokenParts(t *testing.T) {
	fsys := fstest.MapFS{
		"proc/cpuinfo":             {Data: []byte("garbage without colon\n")},
		"proc/meminfo":             {Data: []byte("MemTotal: 1024 kB\n")},
		"proc/sys/kernel/hostname": {Data: []byte("n1\n")},
		"proc/net/route":           {Data: []byte("Iface\tDestination\n")},
		"sys/block/vda/size":       {Data: []byte("8\n")},
	}
	inv, err := (&Collector{FS: fsys, Net: FixedNet{}, Arch: "amd64"}).Collect(context.Background())
	if !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "cpu:") {
		t.Errorf("err = %v, want a cpu parse error", err)
	}
	if inv == nil || inv.CPU != nil || inv.Memory.UsableBytes != 1<<20 || inv.Memory.PhysicalBytesMethod != models.MemoryMethodMeminfo ||
		len(inv.Disks) != 1 || inv.Disks[0].SizeBytes != 4096 || inv.Hostname != "n1" || inv.TpmVersion != "none" {
		t.Errorf("inventory = %+v", inv)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (&Collector{FS: fsys}).Collect(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

func TestBootSecureBootStates(t *testing.T) {
	for raw, want := range map[string]models.SecureBootState{
		"\x06\x00\x00\x00\x00": models.SecureBootStateDisabled,
		"\x06\x00\x00\x00\x01": models.SecureBootStateEnabled,
		"\x06\x00\x00\x00\x07": models.SecureBootStateUnknown,
		"\x06":                 models.SecureBootStateUnknown,
	} {
		fsys := fstest.MapFS{
			secureBootVar:  {Data: []byte(raw)},
			"proc/cmdline": {Data: []byte("ignition.config.url=http://x/ign?token=abc&mac=1 password=hunter2\n")},
		}
		b := (&Collector{FS: fsys}).Boot()
		if b.SecureBootState != want || b.CurrentBootMode != models.BootModeUEFI {
			t.Errorf("%q: got %+v", raw, b)
		}
		if strings.Contains(b.CommandLine, "abc") || strings.Contains(b.CommandLine, "hunter2") || !strings.Contains(b.CommandLine, "mac=1") {
			t.Errorf("command line not redacted: %q", b.CommandLine)
		}
	}
}

func TestDisksSkipUnreadableDisk(t *testing.T) {
	fsys := fstest.MapFS{
		"sys/block/vda/size": {Data: []byte("8\n")},
		"sys/block/vdb/size": {Data: []byte("many\n")},
	}
	d, err := (&Collector{FS: fsys}).Disks()
	if !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "vdb") || len(d) != 1 || d[0].Name != "vda" {
		t.Errorf("disks = %+v, err = %v", d, err)
	}
}

func TestUnescapeMount(t *testing.T) {
	for in, want := range map[string]string{`/a\040b`: "/a b", `/x\134y`: `/x\y`, `/t\`: `/t\`, `/q\9`: `/q\9`, `/r\400`: `/r\400`} {
		if got := unescapeMount(in); got != want {
			t.Errorf("unescapeMount(%q) = %q, want %q", in, got, want)
		}
	}
}
