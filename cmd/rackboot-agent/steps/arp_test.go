package steps_test

import (
	"errors"
	"testing"

	"github.com/rackboot/rackboot/cmd/rackboot-agent/steps"
)

const arpTable = `IP address       HW type     Flags       HW address            Mask     Device
192.168.122.1    0x1         0x2         52:54:00:AB:cd:ef     *        enp1s0
192.168.122.9    0x1         0x0         00:00:00:00:00:00     *        enp1s0
10.1.0.2         0x1         0x6         aa:bb:cc:dd:ee:01     *        br0
`

func TestParseARPTable(t *testing.T) {
	got, err := steps.ParseARPTable([]byte(arpTable))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].IP.String() != "192.168.122.1" || got[0].MAC != "52:54:00:ab:cd:ef" || got[0].Device != "enp1s0" ||
		got[1].Device != "br0" {
		t.Fatalf("%+v", got)
	}
	for _, bad := range []string{"", "nonsense\n", arpTable + "1.2.3.4 0x1\n", arpTable + "::1 0x1 0x2 aa * lo\n", arpTable + "1.2.3.4 0x1 0xZZ aa * lo\n"} {
		if _, err := steps.ParseARPTable([]byte(bad)); !errors.Is(err, steps.ErrParse) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func FuzzParseARPTable(f *testing.F) {
	f.Add([]byte(arpTable))
	f.Add([]byte("IP address HW type Flags HW address Mask Device\n"))
	f.Add([]byte("IP address\n1.2.3.4 0x1 0x2 aa:bb * eth0 extra\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ns, err := steps.ParseARPTable(b)
		if err != nil {
			if !errors.Is(err, steps.ErrParse) {
				t.Fatalf("error %v does not wrap ErrParse", err)
			}
			return
		}
		for _, n := range ns {
			if !n.IP.Is4() {
				t.Fatalf("non-IPv4 neighbour %v", n.IP)
			}
		}
	})
}
