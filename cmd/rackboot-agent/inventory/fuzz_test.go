package inventory

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// seed adds every fixture's copy of a /proc file to the corpus.
func seed(f *testing.F, rel string, extra ...string) {
	for name := range fixtures {
		if b, err := os.ReadFile(filepath.Join("testdata", name, rel)); err == nil {
			f.Add(b)
		}
	}
	for _, e := range extra {
		f.Add([]byte(e))
	}
}

// checkErr fails unless err is nil or wraps ErrParse.
func checkErr(t *testing.T, err error) {
	if err != nil && !errors.Is(err, ErrParse) {
		t.Fatalf("error does not wrap ErrParse: %v", err)
	}
}

func FuzzParseCPUInfo(f *testing.F) {
	seed(f, "proc/cpuinfo", "processor : 0\n", "processor:0\nCPU implementer: 0x41\nCPU part: 0xd0c\n")
	f.Fuzz(func(t *testing.T, b []byte) {
		ci, err := ParseCPUInfo(b)
		checkErr(t, err)
		if err == nil && ci.Processors < 1 {
			t.Fatalf("no error but %d processors", ci.Processors)
		}
	})
}

func FuzzParseMemInfo(f *testing.F) {
	seed(f, "proc/meminfo", "MemTotal: 1 kB\n", "HugePages_Total: 0\n")
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseMemInfo(b)
		checkErr(t, err)
		for k, v := range m {
			if v < 0 {
				t.Fatalf("%s = %d", k, v)
			}
		}
	})
}

func FuzzParseRoutes4(f *testing.F) {
	seed(f, "proc/net/route", "Iface\n", "h\neth0 00000000 0100000A 0003 0 0 -5 00000000\n")
	f.Fuzz(func(t *testing.T, b []byte) {
		rs, err := ParseRoutes4(b)
		checkErr(t, err)
		for _, r := range rs {
			if r.Family != 2 || r.Interface == "" || r.Interface == "lo" {
				t.Fatalf("route %+v", r)
			}
		}
	})
}

func FuzzParseRoutes6(f *testing.F) {
	seed(f, "proc/net/ipv6_route", "")
	f.Fuzz(func(t *testing.T, b []byte) {
		rs, err := ParseRoutes6(b)
		checkErr(t, err)
		for _, r := range rs {
			if r.Family != 10 || r.Interface == "" || r.Interface == "lo" {
				t.Fatalf("route %+v", r)
			}
		}
	})
}

func FuzzParseSMBIOSMemory(f *testing.F) {
	seed(f, "sys/firmware/dmi/tables/DMI")
	f.Add(smbios([2]uint32{0x7FFF, 0xFFFFFFFF}, [2]uint32{0x8001, 0}))
	f.Fuzz(func(t *testing.T, b []byte) {
		n, err := ParseSMBIOSMemory(b)
		checkErr(t, err)
		if n < 0 {
			t.Fatalf("negative total %d", n)
		}
	})
}

func FuzzParseResolvConf(f *testing.F) {
	seed(f, "etc/resolv.conf", "nameserver ::1%lo\nsearch\n")
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, a := range ParseResolvConf(b).Nameservers {
			if !a.IsValid() {
				t.Fatal("invalid nameserver address")
			}
		}
	})
}

func FuzzReadMounts(f *testing.F) {
	seed(f, "proc/mounts", `/dev/sda1 /a\040b\ ext4 rw 0 0`+"\n", `/dev/x \777\\`)
	f.Fuzz(func(t *testing.T, b []byte) {
		m := readMounts(fstest.MapFS{"proc/mounts": {Data: b}})
		for dev := range m {
			if !strings.HasPrefix(dev, "/dev/") {
				t.Fatalf("device %q", dev)
			}
		}
	})
}
