package vmtest

import (
	"strings"
	"testing"

	"github.com/rackboot/rackboot/testbed/image"
)

// TestInit: the script loads every module in order, waits for the disk
// it is given, brings eth0 up at Addr and only then runs the body, and
// powers off last.
func TestInit(t *testing.T) {
	s := Init("vdb", "/invdump\nsync\n")
	want := []string{"#!/bin/busybox sh\n", "for m in " + strings.Join(image.Modules(), " ") + "; do",
		"[ ! -e /sys/block/vdb ]", "ip addr add " + Addr + " dev eth0\n", "/invdump\nsync\npoweroff -f\n"}
	rest := s
	for _, w := range want {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Fatalf("/init lacks %q (in this order):\n%s", w, s)
		}
		rest = rest[i+len(w):]
	}
	if rest != "" || !strings.HasPrefix(s, want[0]) {
		t.Errorf("/init does not start with the shebang and end with poweroff:\n%s", s)
	}
}
