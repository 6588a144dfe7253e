package image

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// testdata/console-bios.log is a real serial console: SeaBIOS, iPXE, the
// kernel and this image's /init, booted by the dnsmasq harness.
func readConsole(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("testdata/console-bios.log")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseLeaseFromRealConsole(t *testing.T) {
	got, err := ParseLease(readConsole(t))
	if err != nil {
		t.Fatal(err)
	}
	want := Lease{IP: "10.99.0.67", Mask: "24", Router: "10.99.0.1", Server: "10.99.0.1", SIAddr: "10.99.0.1", BootFile: "undionly.kpxe"}
	if got != want {
		t.Errorf("ParseLease = %+v, want %+v", got, want)
	}
}

func TestParseIgnitionFromRealConsole(t *testing.T) {
	got, err := ParseIgnition(readConsole(t))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"/etc/motd","contents":{"source":"data:,harness"}}]}}`
	if string(got) != want {
		t.Errorf("ParseIgnition = %s, want %s", got, want)
	}
	if errs := Errors(readConsole(t)); len(errs) != 0 {
		t.Errorf("Errors = %q, want none", errs)
	}
}

func TestParseIgnitionMultiLine(t *testing.T) {
	console := "junk\r\nRACKBOOT-IGNITION-BEGIN\r\n{\r\n  \"a\": 1\r\n}\r\n\r\nRACKBOOT-IGNITION-END\r\n"
	got, err := ParseIgnition(console)
	if err != nil || string(got) != "{\n  \"a\": 1\n}" {
		t.Errorf("ParseIgnition = %q, %v", got, err)
	}
}

func TestParseMissingReports(t *testing.T) {
	if _, err := ParseLease("RACKBOOT-INIT\nRACKBOOT-ERROR dhcp leasefail\n"); !errors.Is(err, ErrNoLease) {
		t.Errorf("ParseLease without a lease: %v, want ErrNoLease", err)
	}
	if _, err := ParseLease("RACKBOOT-LEASE mask=24\n"); !errors.Is(err, ErrNoLease) {
		t.Errorf("ParseLease without ip: %v, want ErrNoLease", err)
	}
	if _, err := ParseIgnition("RACKBOOT-IGNITION-NONE\n"); !errors.Is(err, ErrNoIgnition) {
		t.Errorf("ParseIgnition with none: %v, want ErrNoIgnition", err)
	}
	// A report cut off before its end marker is not a config.
	if _, err := ParseIgnition("RACKBOOT-IGNITION-BEGIN\n{\"a\":"); !errors.Is(err, ErrNoIgnition) {
		t.Errorf("ParseIgnition truncated: %v, want ErrNoIgnition", err)
	}
	errs := Errors("x\nRACKBOOT-ERROR insmod virtio\n")
	if len(errs) != 1 || !strings.Contains(errs[0], "insmod virtio") {
		t.Errorf("Errors = %q", errs)
	}
}
