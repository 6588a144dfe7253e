package bootsel

import (
	"testing"

	"github.com/rackboot/rackboot/engine"
)

func TestApplyKernelArgs(t *testing.T) {
	base := "coreos.live.rootfs_url=http://a/r ignition.firstboot console=tty0 console=ttyS0 quiet"
	for _, tc := range []struct {
		changes []engine.KernelArgument
		want    string
	}{
		{nil, base},
		{[]engine.KernelArgument{{Operation: "append", Value: "rd.luks.options=discard"}},
			base + " rd.luks.options=discard"},
		{[]engine.KernelArgument{{Operation: "delete", Value: "quiet"}, {Operation: "delete", Value: "console=tty0"}},
			"coreos.live.rootfs_url=http://a/r ignition.firstboot console=ttyS0"},
		{[]engine.KernelArgument{{Operation: "delete", Value: "console"}},
			"coreos.live.rootfs_url=http://a/r ignition.firstboot quiet"},
		{[]engine.KernelArgument{{Operation: "replace", Value: "console=ttyS1,115200n8"}},
			"coreos.live.rootfs_url=http://a/r ignition.firstboot console=ttyS1,115200n8 quiet"},
		{[]engine.KernelArgument{{Operation: "replace", Value: "nomodeset"}}, base + " nomodeset"},
	} {
		if got := applyKernelArgs(base, tc.changes); got != tc.want {
			t.Errorf("%+v:\n got %s\nwant %s", tc.changes, got, tc.want)
		}
	}
}
