package peers

import (
	"context"
	"os/exec"
	"strings"
)

// Packages lists the Debian packages whose versions a report names.
func Packages() []string {
	return []string{"kea-dhcp4-server", "kea-admin", "dnsmasq-base", "tftpd-hpa", "nginx-light", "nginx", "ipxe"}
}

// Version returns the installed version of a Debian package, or "not installed".
func Version(ctx context.Context, pkg string) string {
	out, err := exec.CommandContext(ctx, "dpkg-query", "-W", "-f", "${Version}", pkg).Output()
	if err != nil || len(out) == 0 {
		return "not installed"
	}
	return strings.TrimSpace(string(out))
}
