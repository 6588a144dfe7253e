package steps

import (
	"context"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/rackboot/rackboot/engine/models"
)

// MaxDomains bounds the names one domain-resolution step resolves.
const MaxDomains = 64

// domains runs domain-resolution: args[0] is a DomainResolutionRequest;
// each name is resolved with the system resolver (resolv.conf) and
// reported with its IPv4 and IPv6 addresses and CNAME. A name that does
// not resolve is reported with empty lists, not as a failed step.
func (d Deps) domains(ctx context.Context, args []string) (string, error) {
	names, err := parseDomainArgs(args)
	if err != nil {
		return "", err
	}
	resp := models.DomainResolutionResponse{Resolutions: []*models.DomainResolutionResponseDomain{}}
	for _, name := range names {
		resp.Resolutions = append(resp.Resolutions, d.resolve(ctx, name))
	}
	return marshal(resp)
}

// parseDomainArgs decodes and checks the step's argument.
func parseDomainArgs(args []string) ([]string, error) {
	var req models.DomainResolutionRequest
	if err := oneJSONArg("domain-resolution", args, &req); err != nil {
		return nil, err
	}
	if len(req.Domains) > MaxDomains {
		return nil, fmt.Errorf("%w: domain-resolution: %d names, at most %d", ErrArgs, len(req.Domains), MaxDomains)
	}
	names := make([]string, 0, len(req.Domains))
	for _, dom := range req.Domains {
		if err := checkDomain(dom.DomainName); err != nil {
			return nil, err
		}
		names = append(names, dom.DomainName)
	}
	return names, nil
}

func (d Deps) resolve(ctx context.Context, name string) *models.DomainResolutionResponseDomain {
	wait := d.DNSWait
	if wait <= 0 {
		wait = 5 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	r := d.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	out := &models.DomainResolutionResponseDomain{
		DomainName: name, Cnames: []string{}, IPV4Addresses: []string{}, IPV6Addresses: []string{},
	}
	addrs, err := r.LookupNetIP(ctx, "ip", name)
	if err != nil {
		return out // not resolvable: empty lists, as upstream reports it
	}
	for _, a := range addrs {
		a = a.Unmap()
		if a.Is4() {
			out.IPV4Addresses = appendUnique(out.IPV4Addresses, a.String())
		} else {
			out.IPV6Addresses = appendUnique(out.IPV6Addresses, a.String())
		}
	}
	if cname, err := r.LookupCNAME(ctx, name); err == nil {
		cname = strings.TrimSuffix(cname, ".")
		if cname != "" && !strings.EqualFold(cname, strings.TrimSuffix(name, ".")) {
			out.Cnames = append(out.Cnames, cname)
		}
	}
	return out
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// checkDomain accepts DNS names: at most 253 bytes of letters, digits,
// '-', '_' and '.' in labels of 1 to 63 bytes.
func checkDomain(name string) error {
	n := strings.TrimSuffix(name, ".")
	if n == "" || len(n) > 253 {
		return fmt.Errorf("%w: domain-resolution: %q is not a domain name", ErrArgs, name)
	}
	for _, label := range strings.Split(n, ".") {
		if label == "" || len(label) > 63 {
			return fmt.Errorf("%w: domain-resolution: %q has an empty or overlong label", ErrArgs, name)
		}
		for _, c := range label {
			ok := c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
			if !ok {
				return fmt.Errorf("%w: domain-resolution: %q contains %q", ErrArgs, name, c)
			}
		}
	}
	return nil
}
