package steps_test

import (
	"context"
	"encoding/json"
	"net"
	"net/netip"
	"slices"
	"testing"

	"golang.org/x/net/dns/dnsmessage"

	"github.com/rackboot/rackboot/cmd/rackboot-agent/steps"
	"github.com/rackboot/rackboot/engine/models"
)

// dnsServer answers on 127.0.0.1: api.rackboot.test is a CNAME of
// lb.rackboot.test, which has 192.0.2.10 and 2001:db8::10; anything else
// is NXDOMAIN.
func dnsServer(t *testing.T) string {
	t.Helper()
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if out := dnsAnswer(buf[:n]); out != nil {
				pc.WriteTo(out, from)
			}
		}
	}()
	return pc.LocalAddr().String()
}

func dnsAnswer(q []byte) []byte {
	var p dnsmessage.Parser
	h, err := p.Start(q)
	if err != nil {
		return nil
	}
	qs, err := p.AllQuestions()
	if err != nil || len(qs) != 1 {
		return nil
	}
	question := qs[0]
	name := question.Name.String()
	h.Response, h.Authoritative = true, true
	known := name == "api.rackboot.test." || name == "lb.rackboot.test."
	if !known {
		h.RCode = dnsmessage.RCodeNameError
	}
	b := dnsmessage.NewBuilder(nil, h)
	b.EnableCompression()
	_ = b.StartQuestions()
	_ = b.Question(question)
	_ = b.StartAnswers()
	target := question.Name
	if name == "api.rackboot.test." {
		target = dnsmessage.MustNewName("lb.rackboot.test.")
		_ = b.CNAMEResource(dnsmessage.ResourceHeader{Name: question.Name, Class: dnsmessage.ClassINET, TTL: 60},
			dnsmessage.CNAMEResource{CNAME: target})
	}
	if known {
		rh := dnsmessage.ResourceHeader{Name: target, Class: dnsmessage.ClassINET, TTL: 60}
		switch question.Type {
		case dnsmessage.TypeA:
			_ = b.AResource(rh, dnsmessage.AResource{A: [4]byte{192, 0, 2, 10}})
		case dnsmessage.TypeAAAA:
			_ = b.AAAAResource(rh, dnsmessage.AAAAResource{AAAA: netip.MustParseAddr("2001:db8::10").As16()})
		}
	}
	out, _ := b.Finish()
	return out
}

func TestDomainResolution(t *testing.T) {
	addr := dnsServer(t)
	resolver := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", addr) // only ever the in-test server
	}}
	r := steps.NewRunner(steps.Deps{Resolver: resolver})
	arg := `{"domains":[{"domain_name":"localhost"},{"domain_name":"api.rackboot.test"},{"domain_name":"missing.rackboot.test"}]}`
	rep := r.Run(context.Background(), &models.Step{StepID: "domain-resolution-1", StepType: models.StepTypeDomainResolution, Args: []string{arg}})
	if rep.ExitCode != 0 {
		t.Fatalf("%+v", rep)
	}
	var out models.DomainResolutionResponse
	if err := json.Unmarshal([]byte(rep.Output), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Resolutions) != 3 {
		t.Fatalf("%s", rep.Output)
	}
	local, api, missing := out.Resolutions[0], out.Resolutions[1], out.Resolutions[2]
	if local.DomainName != "localhost" || !slices.Contains(local.IPV4Addresses, "127.0.0.1") {
		t.Errorf("localhost: %+v", local)
	}
	if !slices.Equal(api.IPV4Addresses, []string{"192.0.2.10"}) || !slices.Equal(api.IPV6Addresses, []string{"2001:db8::10"}) ||
		!slices.Equal(api.Cnames, []string{"lb.rackboot.test"}) {
		t.Errorf("api: %+v", api)
	}
	if missing.IPV4Addresses == nil || len(missing.IPV4Addresses)+len(missing.IPV6Addresses)+len(missing.Cnames) != 0 {
		t.Errorf("missing: %+v (want empty lists, not null)", missing)
	}
}
