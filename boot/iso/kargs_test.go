package iso

import (
	"errors"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/boot/kargs"
)

// An infra-env's kernel arguments change the ISO's default arguments in
// every kargs area (append, replace, delete, in order); an argument that
// could break out of the bootloader line is refused.
func TestOverlayKernelArgOperations(t *testing.T) {
	b, _ := openTestBase(t, testTree(t))
	img, err := b.Overlay(Custom{KernelArgs: []kargs.Arg{{Operation: kargs.Delete, Value: "quiet"},
		{Operation: kargs.Replace, Value: "console=tty0"}, {Operation: kargs.Append, Value: "rd.net.timeout.carrier=60"}}})
	if err != nil {
		t.Fatal(err)
	}
	got := readAll(t, img)
	want := "console=tty0 rd.net.timeout.carrier=60\n"
	for _, r := range b.Layout().Kargs.Regions {
		region := got[r.Offset : r.Offset+r.Length]
		if !strings.HasPrefix(string(region), want) || strings.Trim(string(region[len(want):]), "#") != "" {
			t.Errorf("kargs region at %d: %q", r.Offset, region)
		}
	}
	for _, bad := range []string{"a\nMENU x", "a=#1", "a b", `p="x"`, "${x}"} {
		_, err := b.Overlay(Custom{KernelArgs: []kargs.Arg{{Operation: kargs.Append, Value: bad}}})
		if !errors.Is(err, ErrBadKernelArgs) {
			t.Errorf("kargs %q: %v", bad, err)
		}
	}
}
