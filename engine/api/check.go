package api

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

// newID returns a random RFC 4122 version 4 UUID string.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand panics instead)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// checkUUID accepts 8-4-4-4-12 hex (any version: agent host ids are not
// always RFC 4122).
func checkUUID(field, id string) error {
	if len(id) != 36 {
		return badRequest("%s %q is not a UUID", field, hosts.Clip(id))
	}
	for i, r := range id {
		dash := i == 8 || i == 13 || i == 18 || i == 23
		hex := '0' <= r && r <= '9' || 'a' <= r && r <= 'f' || 'A' <= r && r <= 'F'
		if dash != (r == '-') || !dash && !hex {
			return badRequest("%s %q is not a UUID", field, hosts.Clip(id))
		}
	}
	return nil
}

// checkPullSecret checks a pull secret's shape; the error never contains it.
func checkPullSecret(ps string) error {
	var doc struct {
		Auths map[string]json.RawMessage `json:"auths"`
	}
	if err := json.Unmarshal([]byte(ps), &doc); err != nil || doc.Auths == nil {
		return badRequest(`pull_secret is not a registry auth file ({"auths": {...}})`)
	}
	return nil
}

// checkCIDRs checks a list of network CIDRs (none with host bits set).
func checkCIDRs(field string, cidrs []string) error {
	for _, c := range cidrs {
		if _, err := validation.NetworkCIDR(c); err != nil {
			return badRequest("%s: %v", field, err)
		}
	}
	return nil
}

// checkIPs checks a list of IP addresses.
func checkIPs(field string, ips []string) error {
	for _, ip := range ips {
		if _, err := netip.ParseAddr(ip); err != nil {
			return badRequest("%s: %q is not an IP address", field, hosts.Clip(ip))
		}
	}
	return nil
}

// checkDomain checks a base DNS domain.
func checkDomain(d string) error {
	if d == "" {
		return nil
	}
	for _, label := range strings.Split(d, ".") {
		if !validation.HostnameValid(label) {
			return badRequest("base_dns_domain %q is not a DNS domain", hosts.Clip(d))
		}
	}
	return nil
}

// checkName checks an object name.
func checkName(kind, name string) error {
	if strings.TrimSpace(name) == "" {
		return badRequest("%s name is required", kind)
	}
	if len(name) > 253 || strings.ContainsAny(name, "\x00\r\n") {
		return badRequest("%s name %q is invalid", kind, hosts.Clip(name))
	}
	return nil
}

// checkArch checks a CPU architecture.
func checkArch(arch string) error {
	switch arch {
	case "", "x86_64", "aarch64", "arm64", "ppc64le", "s390x", "multi":
		return nil
	}
	return badRequest("cpu_architecture %q is not one of x86_64, aarch64, arm64, ppc64le, s390x, multi", hosts.Clip(arch))
}

// Pull secrets live in engine secrets named after their owner, under
// engine.PullSecretKey.
func clusterSecretName(id string) string  { return "pull-secret-cluster-" + id }
func infraEnvSecretName(id string) string { return "pull-secret-infra-env-" + id }

// pullSecret returns the pull secret named ref ("" when none).
func pullSecret(m *engine.Model, ref string) string {
	ps, _ := m.PullSecret(ref)
	return ps
}

func putPullSecret(name, ps string) *engine.PutSecret {
	return &engine.PutSecret{Secret: engine.Secret{Name: name, Type: "pull-secret",
		Data: map[string][]byte{engine.PullSecretKey: []byte(ps)}}}
}
