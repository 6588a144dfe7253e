package redfish

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// These tests drive the emulator with Redfish clients nobody here wrote:
// DMTF's redfishtool and OpenStack's sushy (Debian's redfishtool and
// python3-sushy), over TLS on loopback without certificate checks, and
// assert the state the emulator ends up in. They skip when the client is
// not installed.

// run runs a client command, failing the test with its output on error.
func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "NO_PROXY=*", "LANG=C.UTF-8"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func TestRedfishtool(t *testing.T) {
	tool, err := exec.LookPath("redfishtool")
	if err != nil {
		t.Skip("redfishtool not installed (apt-get install redfishtool)")
	}
	svc, f := newTestService(t, 0)
	addr := serveTLS(t, svc)
	rft := func(args ...string) string {
		return run(t, tool, append([]string{"-r", addr, "-u", testUser, "-p", testPass, "-S", "Always", "-A", "Basic"}, args...)...)
	}
	if out := rft("Systems", "-I", "vm1"); !strings.Contains(out, `"PowerState": "Off"`) {
		t.Errorf("Systems get:\n%s", out)
	}
	if out := rft("Systems", "-I", "vm1", "EthernetInterfaces", "-i", "nic0"); !strings.Contains(out, testMAC) {
		t.Errorf("EthernetInterfaces nic0 lacks %s:\n%s", testMAC, out)
	}
	rft("Systems", "-I", "vm1", "setBootOverride", "Once", "Pxe")
	if b, _ := svc.Boot("vm1"); b != (BootOverride{TargetPxe, EnabledOnce}) {
		t.Errorf("after setBootOverride Once Pxe: %v", b)
	}
	rft("Systems", "-I", "vm1", "reset", "On")
	if b, _ := svc.Boot("vm1"); b.Enabled != EnabledDisabled || f.history() != "start:Pxe" {
		t.Errorf("after reset On: boot %v, machine %q; want a Pxe power-on and the override used up", b, f.history())
	}
	// redfishtool with a login session (X-Auth-Token) instead of Basic.
	run(t, tool, "-r", addr, "-u", testUser, "-p", testPass, "-S", "Always", "-A", "Session", "Systems", "-1", "reset", "ForceOff")
	if out := rft("Systems", "-1", "-P", "PowerState"); !strings.Contains(out, "Off") || f.history() != "start:Pxe stop" {
		t.Errorf("after ForceOff: %q, machine %q", out, f.history())
	}
}

func TestSushy(t *testing.T) {
	python := "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import sushy").Run(); err != nil {
		t.Skip("python3-sushy not installed (apt-get install python3-sushy)")
	}
	svc, f := newTestService(t, 0)
	addr := serveTLS(t, svc)
	img := imageServer(t, "SUSHY-ISO") + "/disc.iso"
	out := run(t, python, "testdata/sushy_client.py", "https://"+addr+"/redfish/v1", testUser, testPass, img)
	t.Logf("sushy:\n%s", out)
	// The script: insert the CD, boot once from it, power on, eject.
	if got, want := f.history(), "start:Cd medium:"; got != want {
		t.Errorf("machine calls = %q, want %q", got, want)
	}
	if f.lastOpt.CD == "" {
		t.Error("the power-on had no CD in the drive")
	}
	if b, _ := svc.Boot("vm1"); b.Enabled != EnabledDisabled {
		t.Errorf("boot override = %v, want used up", b)
	}
	for _, want := range []string{"power=PowerState.ON", "mac=" + testMAC, "inserted=True image=" + img, "session=True", "ejected=False"} {
		if !strings.Contains(out, want) {
			t.Errorf("sushy output lacks %q", want)
		}
	}
}
