package kargs

import (
	"errors"
	"testing"
)

func TestApply(t *testing.T) {
	base := "console=ttyS0 ignition.firstboot ignition.platform.id=metal rd.net.timeout.carrier=5"
	for _, tc := range []struct {
		args []Arg
		want string
	}{
		{nil, base},
		{[]Arg{{Append, "rd.net.timeout.carrier=60"}, {Append, "nomodeset"}},
			base + " rd.net.timeout.carrier=60 nomodeset"},
		{[]Arg{{Replace, "console=tty0"}}, "console=tty0 ignition.firstboot ignition.platform.id=metal rd.net.timeout.carrier=5"},
		{[]Arg{{Replace, "rd.neednet=1"}}, base + " rd.neednet=1"},
		{[]Arg{{Delete, "console"}}, "ignition.firstboot ignition.platform.id=metal rd.net.timeout.carrier=5"},
		{[]Arg{{Delete, "console=tty9"}}, base},
		{[]Arg{{Delete, "console=ttyS0"}, {Append, "console=tty0"}},
			"ignition.firstboot ignition.platform.id=metal rd.net.timeout.carrier=5 console=tty0"},
	} {
		got, err := Apply(base, tc.args)
		if err != nil || got != tc.want {
			t.Errorf("Apply(%v) = %q, %v; want %q", tc.args, got, err, tc.want)
		}
	}
}

// Values that would split into several arguments, end the kernel line or
// expand in iPXE or a shell are refused.
func TestCheckRefusesInjection(t *testing.T) {
	for _, a := range []Arg{
		{Append, "a b"}, {Append, "a\tb"}, {Append, "a\nb"}, {Append, "a\rboot"}, {Append, `p="x y"`}, {Append, "p='x'"},
		{Append, "${net0/mac}"}, {Append, "a||shell"}, {Append, "a;reboot"}, {Append, "a#b"}, {Append, `a\`},
		{Append, "a&&b"}, {Append, "<x>"}, {Append, "$(reboot)"}, {Append, "a\x00"}, {Append, "ä=1"},
		{Append, ""}, {Append, "=x"}, {Replace, "novalue"}, {"prepend", "x"}, {"", "x"},
	} {
		if err := Check([]Arg{a}); !errors.Is(err, ErrBad) {
			t.Errorf("Check(%q %q) = %v, want ErrBad", a.Operation, a.Value, err)
		}
	}
	if err := Check(make([]Arg, MaxArgs+1)); !errors.Is(err, ErrBad) {
		t.Errorf("too many arguments: %v", err)
	}
}

func FuzzApply(f *testing.F) {
	f.Add("console=ttyS0 quiet", "append", "rd.debug")
	f.Add("a=1", "replace", "a=2")
	f.Fuzz(func(t *testing.T, _, op, v string) {
		out, err := Apply("console=ttyS0", []Arg{{op, v}})
		if err == nil {
			for _, c := range out {
				if c == '\n' || c == '$' || c == '"' {
					t.Fatalf("Apply produced %q", out)
				}
			}
		}
	})
}

// The iPXE script's cases (moved from engine/bootsel when its copy of
// the apply logic went): delete by value or by bare key, replace in place
// of the first of its key or appended; a bare replace (which Check
// refuses) appends.
func TestEditIPXECases(t *testing.T) {
	base := "coreos.live.rootfs_url=http://a/r ignition.firstboot console=tty0 console=ttyS0 quiet"
	for _, tc := range []struct {
		changes []Arg
		want    string
	}{
		{nil, base},
		{[]Arg{{Operation: "append", Value: "rd.luks.options=discard"}},
			base + " rd.luks.options=discard"},
		{[]Arg{{Operation: "delete", Value: "quiet"}, {Operation: "delete", Value: "console=tty0"}},
			"coreos.live.rootfs_url=http://a/r ignition.firstboot console=ttyS0"},
		{[]Arg{{Operation: "delete", Value: "console"}},
			"coreos.live.rootfs_url=http://a/r ignition.firstboot quiet"},
		{[]Arg{{Operation: "replace", Value: "console=ttyS1,115200n8"}},
			"coreos.live.rootfs_url=http://a/r ignition.firstboot console=ttyS1,115200n8 quiet"},
		{[]Arg{{Operation: "replace", Value: "nomodeset"}}, base + " nomodeset"},
	} {
		if got := edit(base, tc.changes); got != tc.want {
			t.Errorf("%+v:\n got %s\nwant %s", tc.changes, got, tc.want)
		}
	}
}
