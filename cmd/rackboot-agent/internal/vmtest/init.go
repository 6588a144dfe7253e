package vmtest

import (
	"fmt"
	"strings"

	"github.com/rackboot/rackboot/testbed/image"
)

// Addr is the address Init gives the VM's eth0.
const Addr = "192.0.2.10/24"

// initHead is the start of a VM's /init: busybox, the pseudo file systems
// (efivarfs too under UEFI), the serial console, the virtio modules, then
// up to 10 s for eth0 and /sys/block/<disk>, and eth0 up at Addr.
const initHead = `#!/bin/busybox sh
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
[ -d /sys/firmware/efi/efivars ] && mount -t efivarfs efivarfs /sys/firmware/efi/efivars
exec </dev/console >/dev/console 2>&1
dmesg -n 1
for m in %s; do insmod /lib/modules/$m.ko; done
i=0
while { [ ! -e /sys/class/net/eth0 ] || [ ! -e /sys/block/%s ]; } && [ $i -lt 200 ]; do usleep 50000; i=$((i + 1)); done
ip link set lo up
ip link set eth0 up
ip addr add %s dev eth0
`

// Init is a VM's /init: the set-up of initHead waiting for disk (a name
// under /sys/block, such as vda), then body, then an immediate power off.
func Init(disk, body string) string {
	head := fmt.Sprintf(initHead, strings.Join(image.Modules(), " "), disk, Addr)
	return head + strings.TrimSuffix(body, "\n") + "\npoweroff -f\n"
}
