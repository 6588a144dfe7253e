package dhcp

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
)

func TestConfigValidate(t *testing.T) {
	a := netip.MustParseAddr
	cases := []struct {
		name   string
		change func(*Config)
		want   string // substring of the error; "" for valid
	}{
		{"valid", func(*Config) {}, ""},
		{"proxy needs no subnet", func(c *Config) { c.Mode = ModeProxy; c.Subnet = netip.Prefix{} }, ""},
		{"no server address", func(c *Config) { c.ServerIP = netip.Addr{} }, "server address"},
		{"IPv6 server", func(c *Config) { c.ServerIP = a("fd00::1") }, "server address"},
		{"no subnet in full mode", func(c *Config) { c.Subnet = netip.Prefix{} }, "IPv4 subnet"},
		{"host bits", func(c *Config) { c.Subnet = netip.MustParsePrefix("10.99.0.1/24") }, "host bits"},
		{"range outside subnet", func(c *Config) { c.Ranges[0].End = a("10.99.1.5") }, "not inside subnet"},
		{"range reversed", func(c *Config) { c.Ranges[0] = Range{a("10.99.0.200"), a("10.99.0.100")} }, "ends before it starts"},
		{"ranges overlap", func(c *Config) { c.Ranges = append(c.Ranges, Range{a("10.99.0.150"), a("10.99.0.250")}) }, "overlaps"},
		{"reservation outside subnet", func(c *Config) { c.Reservations[0].IP = a("10.98.0.1") }, "outside subnet"},
		{"injecting hostname", func(c *Config) { c.Reservations[0].Hostname = "x\nshell" }, "unsafe"},
		{"short MAC", func(c *Config) { c.Reservations[0].MAC = c.Reservations[0].MAC[:3] }, "6-byte"},
		{"MAC twice", func(c *Config) {
			c.Reservations = append(c.Reservations, Reservation{MAC: macReserved, IP: a("10.99.0.12")})
		}, "reserved twice"},
		{"IP twice", func(c *Config) {
			c.Reservations = append(c.Reservations, Reservation{MAC: macOther, IP: a("10.99.0.11")})
		}, "reserved twice"},
		{"router outside subnet", func(c *Config) { c.Router = a("10.1.1.1") }, "router"},
		{"bad http base", func(c *Config) { c.HTTPBase = "ftp://x" }, "http base"},
		{"negative lease", func(c *Config) { c.LeaseTime = -1 }, "negative"},
		{"bad mode", func(c *Config) { c.Mode = 7 }, "mode"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := testConfig()
			c.Ranges = append([]Range(nil), c.Ranges...)
			c.Reservations = append([]Reservation(nil), c.Reservations...)
			tc.change(&c)
			err := c.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrConfig mentioning %q", err, tc.want)
			}
		})
	}
}

func TestParseMode(t *testing.T) {
	for _, s := range []string{"full", "proxy"} {
		m, err := ParseMode(s)
		if err != nil || m.String() != s {
			t.Errorf("ParseMode(%q) = %v, %v", s, m, err)
		}
	}
	if _, err := ParseMode("off"); !errors.Is(err, ErrConfig) {
		t.Errorf("ParseMode(off): err %v", err)
	}
}
