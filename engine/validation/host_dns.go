package validation

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/rackboot/rackboot/engine/models"
)

// Clock skew the service accepts (upstream's).
const (
	maxServiceAheadOfHost = 20 * time.Minute
	maxHostAheadOfService = time.Hour
)

func isUnboundStatus(s string) bool {
	return slices.Contains([]string{models.HostStatusInsufficientUnbound, models.HostStatusDisconnectedUnbound,
		models.HostStatusDiscoveringUnbound, models.HostStatusKnownUnbound}, s)
}

func checkNTPSynced(h HostFacts, _ Thresholds) Result {
	const id = HostNTPSynced
	if h.NTP != nil {
		for _, s := range h.NTP.NtpSources {
			if s != nil && s.SourceState == models.SourceStateSynced {
				return result(id, StatusSuccess, "Host NTP is synced")
			}
		}
	}
	if isUnboundStatus(h.Status) && !h.NTPSourcesConfigured {
		return hidden(id, "")
	}
	return result(id, StatusFailure, "Host couldn't synchronize with any NTP server")
}

func checkTimeSynced(h HostFacts, _ Thresholds) Result {
	const id = HostTimeSyncedWithService
	if h.HostTime == 0 {
		return result(id, StatusPending, "Missing host time, can't determine synchronization between host and service")
	}
	now := h.Now.UTC()
	diff := now.Sub(time.Unix(h.HostTime, 0))
	switch {
	case diff > maxServiceAheadOfHost:
		return result(id, StatusFailure, "Host clock is not synchronized, service time is ahead of host's at least for %.1f minutes, "+
			"please configure an NTP server via DHCP. Service time: %s", maxServiceAheadOfHost.Minutes(), now)
	case diff < -maxHostAheadOfService:
		return result(id, StatusFailure, "Host clock is not synchronized, host time is ahead of service at least for %.1f minutes, "+
			"please configure an NTP server via DHCP. Service time: %s", maxHostAheadOfService.Minutes(), now)
	}
	return result(id, StatusSuccess, "Host clock is synchronized with service")
}

// Names the domain-resolution step asks about.
const (
	appsProbeName     = "console-openshift-console"
	wildcardProbeName = "validateNoWildcardDNS"
)

// DomainsToResolve returns the names a host of the cluster should resolve
// in its domain-resolution step (API, internal API, an ingress name, and
// the wildcard probes with and without the trailing dot).
func DomainsToResolve(clusterName, baseDomain string) []string {
	if clusterName == "" || baseDomain == "" {
		return nil
	}
	suffix := "." + clusterName + "." + baseDomain
	return []string{"api" + suffix, "api-int" + suffix, appsProbeName + ".apps" + suffix,
		wildcardProbeName + suffix, wildcardProbeName + suffix + "."}
}

func checkAPIDomain(h HostFacts, _ Thresholds) Result {
	return checkDomain(h, HostAPIDomainResolved, "api", "api", "API load balancer")
}

func checkAPIIntDomain(h HostFacts, _ Thresholds) Result {
	return checkDomain(h, HostAPIIntDomainResolved, "api-int", "api-int", "internal API load balancer")
}

func checkAppsDomain(h HostFacts, _ Thresholds) Result {
	return checkDomain(h, HostAppsDomainResolved, appsProbeName+".apps", "*.apps", "application ingress")
}

// checkDomain: clusters whose networking rackboot manages (and single-node
// clusters) need no DNS records from the user; otherwise the name must
// resolve, and not to this host's own address.
func checkDomain(h HostFacts, id ID, sub, printable, target string) Result {
	if h.Cluster == nil {
		return hidden(id, "")
	}
	c := h.Cluster
	name := sub + "." + c.Name + "." + c.BaseDomain
	shown := printable + "." + c.Name + "." + c.BaseDomain
	if c.BaseDomain == "" {
		shown = target
	}
	if !c.UserManagedNetworking || c.SingleNode {
		return result(id, StatusSuccess, "Domain name resolution for the %s domain was successful or not required", shown)
	}
	if c.BaseDomain == "" {
		return result(id, StatusError, "DNS validation for the %s domain cannot be completed because the cluster does not have base_dns_domain set. "+
			"Please update the cluster with the correct base_dns_domain", target)
	}
	if h.DomainResolutions == nil {
		return result(id, StatusError, "Error while evaluating DNS resolution on this host")
	}
	d := findResolution(h.DomainResolutions, name)
	if d == nil || (len(d.IPV4Addresses) == 0 && len(d.IPV6Addresses) == 0 && len(d.Cnames) == 0) {
		return result(id, StatusFailure, "Couldn't resolve domain name %s on the host. To continue installation, "+
			"create the necessary DNS entries to resolve this domain name to your cluster's %s IP address", shown, target)
	}
	if ip := ownAddress(d, h.Inventory); ip != "" {
		return result(id, StatusFailure, "Domain %s must not point at %s as it is the API address of this host. "+
			"This domain must instead point at the IP address of a load balancer when using user managed networking "+
			"in a multi control-plane node cluster", shown, ip)
	}
	return result(id, StatusSuccess, "Domain name resolution for the %s domain was successful or not required", shown)
}

func findResolution(r *models.DomainResolutionResponse, name string) *models.DomainResolutionResponseDomain {
	for _, d := range r.Resolutions {
		if d != nil && d.DomainName == name {
			return d
		}
	}
	return nil
}

// ownAddress returns the first resolved address that is one of the host's.
func ownAddress(d *models.DomainResolutionResponseDomain, inv *models.Inventory) string {
	own := hostAddrs(inv)
	for _, s := range append(slices.Clone(d.IPV4Addresses), d.IPV6Addresses...) {
		if a, err := netip.ParseAddr(s); err == nil && slices.Contains(own, a) {
			return s
		}
	}
	return ""
}

func checkDNSWildcard(h HostFacts, _ Thresholds) Result {
	const id = HostDNSWildcardNotConfigured
	switch {
	case h.Cluster == nil:
		return hidden(id, "")
	case h.DomainResolutions == nil:
		return result(id, StatusPending, "DNS wildcard check cannot be performed yet because the host has not yet performed DNS resolution")
	}
	c := h.Cluster
	name := wildcardProbeName + "." + c.Name + "." + c.BaseDomain
	r := wildcardResult(h.DomainResolutions, name+".", c, "DNS wildcard configuration was detected for domain *.%s.%s - "+
		"the installation will not be able to complete while this record exists. Please remove it to proceed. The domain resolves to %s")
	if r.Status != StatusSuccess {
		return r
	}
	return wildcardResult(h.DomainResolutions, name, c, "Unexpected domain name resolution was detected for the relative domain name "+
		"with the sub-domain *.%s.%s despite the fact that no resolution exists for a Fully Qualified Domain Name (FQDN) with same sub-domain. "+
		"This is usually a sign of DHCP-provided domain-search configuration. The installation will not be able to complete with this "+
		"configuration in place. Please remove it to proceed. The relative domain name resolves to %s")
}

func wildcardResult(r *models.DomainResolutionResponse, name string, c *HostCluster, format string) Result {
	const id = HostDNSWildcardNotConfigured
	d := findResolution(r, name)
	if d == nil {
		return result(id, StatusError, "Internal error - DNS wildcard check cannot be performed because the DNS validation result doesn't contain the wildcard domain")
	}
	answers := append(append(slices.Clone(d.IPV4Addresses), d.IPV6Addresses...), d.Cnames...)
	if len(answers) == 0 {
		return result(id, StatusSuccess, "DNS wildcard check was successful")
	}
	return result(id, StatusFailure, "%s", fmt.Sprintf(format, c.Name, c.BaseDomain, strings.Join(answers, ", ")))
}
