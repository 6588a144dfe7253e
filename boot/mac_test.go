package boot

import (
	"errors"
	"net"
	"strings"
	"testing"
)

func TestParseMAC(t *testing.T) {
	want := net.HardwareAddr{0x52, 0x54, 0x00, 0xab, 0x00, 0x01}
	for _, s := range []string{"52-54-00-ab-00-01", "52:54:00:AB:00:01", "52-54-00-Ab-00-01"} {
		got, err := ParseMAC(s)
		if err != nil || got.String() != want.String() {
			t.Errorf("ParseMAC(%q) = %v, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "52-54-00-ab-00", "52-54-00-ab-00-01-02", "52:54-00:ab:00:01", "52.54.00.ab.00.01", "5254.00ab.0001", "52-54-00-ag-00-01", "52-54-00-ab-00-0 ", "../../../etc"} {
		if _, err := ParseMAC(s); !errors.Is(err, ErrBadMAC) {
			t.Errorf("ParseMAC(%q) err = %v, want ErrBadMAC", s, err)
		}
	}
}

func FuzzParseMAC(f *testing.F) {
	for _, s := range []string{"52-54-00-ab-00-01", "52:54:00:AB:00:01", "52:54-00:ab:00:01", "", "zz-zz-zz-zz-zz-zz", "52-54-00-ab-00-0\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		mac, err := ParseMAC(s)
		if err != nil {
			if !errors.Is(err, ErrBadMAC) {
				t.Fatalf("error %v does not wrap ErrBadMAC", err)
			}
			return
		}
		// Whatever parses round-trips through either spelling.
		if len(mac) != 6 || !strings.EqualFold(mac.String(), strings.ReplaceAll(s, "-", ":")) {
			t.Fatalf("ParseMAC(%q) = %v", s, mac)
		}
	})
}
