package clusters

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/netip"
	"strings"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/validation"
)

// NewID returns a random RFC 4122 version 4 UUID string.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand panics instead)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// CheckUUID accepts 8-4-4-4-12 hex (any version: agent host ids are not
// always RFC 4122).
func CheckUUID(field, id string) error {
	if len(id) != 36 {
		return hosts.Invalid("%s %q is not a UUID", field, hosts.Clip(id))
	}
	for i, r := range id {
		dash := i == 8 || i == 13 || i == 18 || i == 23
		hex := '0' <= r && r <= '9' || 'a' <= r && r <= 'f' || 'A' <= r && r <= 'F'
		if dash != (r == '-') || !dash && !hex {
			return hosts.Invalid("%s %q is not a UUID", field, hosts.Clip(id))
		}
	}
	return nil
}

// CheckPullSecret checks a pull secret's shape; the error never contains it.
func CheckPullSecret(ps string) error {
	var doc struct {
		Auths map[string]json.RawMessage `json:"auths"`
	}
	if err := json.Unmarshal([]byte(ps), &doc); err != nil || doc.Auths == nil {
		return hosts.Invalid(`pull_secret is not a registry auth file ({"auths": {...}})`)
	}
	return nil
}

// CheckCIDRs checks a list of network CIDRs (none with host bits set).
func CheckCIDRs(field string, cidrs []string) error {
	for _, c := range cidrs {
		if _, err := validation.NetworkCIDR(c); err != nil {
			return hosts.Invalid("%s: %v", field, err)
		}
	}
	return nil
}

// CheckIPs checks a list of IP addresses.
func CheckIPs(field string, ips []string) error {
	for _, ip := range ips {
		if _, err := netip.ParseAddr(ip); err != nil {
			return hosts.Invalid("%s: %q is not an IP address", field, hosts.Clip(ip))
		}
	}
	return nil
}

// CheckDomain checks a base DNS domain.
func CheckDomain(d string) error {
	if d == "" {
		return nil
	}
	for _, label := range strings.Split(d, ".") {
		if !validation.HostnameValid(label) {
			return hosts.Invalid("base_dns_domain %q is not a DNS domain", hosts.Clip(d))
		}
	}
	return nil
}

// CheckName checks an object name.
func CheckName(kind, name string) error {
	if strings.TrimSpace(name) == "" {
		return hosts.Invalid("%s name is required", kind)
	}
	if len(name) > 253 || strings.ContainsAny(name, "\x00\r\n") {
		return hosts.Invalid("%s name %q is invalid", kind, hosts.Clip(name))
	}
	return nil
}

// CheckArch checks a CPU architecture.
func CheckArch(arch string) error {
	switch arch {
	case "", "x86_64", "aarch64", "arm64", "ppc64le", "s390x", "multi":
		return nil
	}
	return hosts.Invalid("cpu_architecture %q is not one of x86_64, aarch64, arm64, ppc64le, s390x, multi", hosts.Clip(arch))
}

// Pull secrets live in engine secrets named after their owner, under
// engine.PullSecretKey.
func ClusterSecretName(id string) string  { return "pull-secret-cluster-" + id }
func InfraEnvSecretName(id string) string { return "pull-secret-infra-env-" + id }

// PullSecret returns the pull secret named ref ("" when none).
func PullSecret(m *engine.Model, ref string) string {
	ps, _ := m.PullSecret(ref)
	return ps
}

func PutPullSecret(name, ps string) *engine.PutSecret {
	return &engine.PutSecret{Secret: engine.Secret{Name: name, Type: "pull-secret",
		Data: map[string][]byte{engine.PullSecretKey: []byte(ps)}}}
}
