package validation

import (
	"fmt"
	"net/netip"
	"regexp"
)

// ClusterNameMax is the longest cluster name upstream's API accepts.
const ClusterNameMax = 54

// clusterNameRE is upstream's cluster name format: a DNS label of
// lower-case letters, digits and hyphens, starting and ending with a
// letter or digit (the cluster name is the first label of every name
// under the cluster's domain, and ends up in shell and iPXE text).
var clusterNameRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// ClusterName checks a cluster name as upstream does; the error quotes the
// name (%q, so no control character reaches a terminal).
func ClusterName(name string) error {
	if len(name) > ClusterNameMax || !clusterNameRE.MatchString(name) {
		return fmt.Errorf("cluster name %.64q is not valid: it must be at most %d lower-case letters, digits and hyphens, and start and end with a letter or digit", name, ClusterNameMax)
	}
	return nil
}

// NetworkCIDR parses a network CIDR (cluster, service or machine
// network), refusing one with host bits set: "10.128.0.1/14 has host bits
// set; did you mean 10.128.0.0/14".
func NetworkCIDR(cidr string) (netip.Prefix, error) {
	p, err := netip.ParsePrefix(cidr)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("%.64q is not a CIDR", cidr)
	}
	if m := p.Masked(); m != p {
		return netip.Prefix{}, fmt.Errorf("%s has host bits set; did you mean %s", p, m)
	}
	return p, nil
}
