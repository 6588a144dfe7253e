package steps

import (
	"errors"
	"testing"
)

// The step arguments come from the service over the network. These fuzz
// targets exercise their decoding and checks only: nothing is sent.

func FuzzConnectivityArgs(f *testing.F) {
	f.Add(`[{"host_id":"h","nics":[{"mac":"02:00:00:00:00:02","ip_addresses":["192.0.2.2/24","2001:db8::2/64"]}]}]`)
	f.Add(`[null]`)
	f.Add(`[{"nics":[null,{"ip_addresses":["fe80::1%eth0"]}]}]`)
	f.Add(`{}`)
	f.Fuzz(func(t *testing.T, arg string) {
		report, targets, err := parseConnectivityArgs([]string{arg})
		if err != nil {
			if !errors.Is(err, ErrArgs) {
				t.Fatalf("error %v does not wrap ErrArgs", err)
			}
			return
		}
		if len(targets) > MaxConnectivityTargets {
			t.Fatalf("%d targets accepted", len(targets))
		}
		for _, tg := range targets {
			if !tg.addr.IsValid() || tg.host >= len(report.RemoteHosts) {
				t.Fatalf("bad target %+v", tg)
			}
		}
	})
}

func FuzzDomainArgs(f *testing.F) {
	f.Add(`{"domains":[{"domain_name":"api.cluster.example.com"},{"domain_name":"localhost."}]}`)
	f.Add(`{"domains":[{"domain_name":"a..b"}]}`)
	f.Add(`{"domains":null}`)
	f.Fuzz(func(t *testing.T, arg string) {
		names, err := parseDomainArgs([]string{arg})
		if err != nil {
			if !errors.Is(err, ErrArgs) {
				t.Fatalf("error %v does not wrap ErrArgs", err)
			}
			return
		}
		for _, n := range names {
			if checkDomain(n) != nil || len(n) > 254 {
				t.Fatalf("accepted %q", n)
			}
		}
	})
}

func FuzzNTPArgs(f *testing.F) {
	f.Add(`{"ntp_source":"pool.example.org,192.0.2.1 [2001:db8::1]:123"}`)
	f.Add(`{"ntp_source":""}`)
	f.Add(`{"ntp_source":"a:0"}`)
	f.Fuzz(func(t *testing.T, arg string) {
		sources, err := parseNTPArgs([]string{arg})
		if err != nil {
			if !errors.Is(err, ErrArgs) {
				t.Fatalf("error %v does not wrap ErrArgs", err)
			}
			return
		}
		if len(sources) > MaxNTPSources {
			t.Fatalf("%d sources accepted", len(sources))
		}
		for _, s := range sources {
			if checkNTPSource(s) != nil {
				t.Fatalf("accepted %q", s)
			}
		}
	})
}
