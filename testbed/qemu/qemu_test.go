package qemu

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestArgsGolden pins the QEMU command lines that TESTBED.md says work.
func TestArgsGolden(t *testing.T) {
	for _, fw := range []Firmware{BIOS, UEFI} {
		t.Run(fw.String(), func(t *testing.T) {
			args, err := Args(Config{Firmware: fw, MAC: "52:54:00:00:00:01", Tap: "tap0", Dir: "/vm", NoReboot: true})
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(args, "\n") + "\n"
			golden := filepath.Join("testdata", fw.String()+".args")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("args differ from %s (go test -update):\n%s", golden, got)
			}
		})
	}
}

// TestDiskArgsGolden pins the command lines with a disk in each boot order.
func TestDiskArgsGolden(t *testing.T) {
	for _, fw := range []Firmware{BIOS, UEFI} {
		for _, b := range []BootOrder{BootNetwork, BootDisk, BootNetworkThenDisk, BootDiskThenNetwork} {
			name := fw.String() + "-" + b.String()
			t.Run(name, func(t *testing.T) {
				args, err := Args(Config{Firmware: fw, MAC: "52:54:00:00:00:01", Tap: "tap0", Dir: "/vm", Disk: "/vm/disk.img", Boot: b})
				if err != nil {
					t.Fatal(err)
				}
				got := strings.Join(args, "\n") + "\n"
				golden := filepath.Join("testdata", name+".args")
				if *update {
					if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatal(err)
				}
				if got != string(want) {
					t.Errorf("args differ from %s (go test -update):\n%s", golden, got)
				}
			})
		}
	}
}

func TestArgsRejectsBadConfig(t *testing.T) {
	for name, cfg := range map[string]Config{
		"no mac":       {Tap: "tap0", Dir: "/vm"},
		"bad mac":      {MAC: "52:54:00:zz:00:01", Tap: "tap0", Dir: "/vm"},
		"comma in tap": {MAC: "52:54:00:00:00:01", Tap: "tap0,script=/x", Dir: "/vm"},
		"no dir":       {MAC: "52:54:00:00:00:01", Tap: "tap0"},
		"firmware":     {MAC: "52:54:00:00:00:01", Tap: "tap0", Dir: "/vm", Firmware: 7},
		"boot no disk": {MAC: "52:54:00:00:00:01", Tap: "tap0", Dir: "/vm", Boot: BootDisk},
		"boot order":   {MAC: "52:54:00:00:00:01", Tap: "tap0", Dir: "/vm", Disk: "/d.img", Boot: 9},
		"comma disk":   {MAC: "52:54:00:00:00:01", Tap: "tap0", Dir: "/vm", Disk: "/d.img,if=floppy"},
	} {
		if _, err := Args(cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: err = %v, want ErrConfig", name, err)
		}
	}
}

// fakeQEMU writes a script standing in for qemu-system-x86_64: it finds the
// -serial file: argument and runs body with $f set to that file.
func fakeQEMU(t *testing.T, body string) string {
	t.Helper()
	script := `#!/bin/sh
while [ $# -gt 0 ]; do
	case "$1" in -serial) f="${2#file:}";; esac
	shift
done
` + body + "\n"
	path := filepath.Join(t.TempDir(), "fake-qemu")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func startFake(t *testing.T, body string) *VM {
	t.Helper()
	vm, err := Start(t.Context(), nil, Config{MAC: "52:54:00:00:00:01", Tap: "tap0", Dir: t.TempDir(), Binary: fakeQEMU(t, body)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { vm.Stop() })
	return vm
}

func TestWaitForMatchesLaterOutput(t *testing.T) {
	vm := startFake(t, `printf 'SeaBIOS\r\n' > "$f"; sleep 0.5; printf 'RACKBOOT-LEASE ip=10.99.0.5\r\n' >> "$f"; exec sleep 30`)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	m, err := vm.WaitFor(ctx, regexp.MustCompile(`RACKBOOT-LEASE ip=(\S+)\n`))
	if err != nil {
		t.Fatal(err)
	}
	if m[1] != "10.99.0.5" {
		t.Errorf("submatch = %q", m[1])
	}
	if err := vm.Stop(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-vm.Done():
	default:
		t.Error("Stop returned with QEMU still running")
	}
}

func TestWaitForReportsExit(t *testing.T) {
	vm := startFake(t, `printf 'kernel panic\n' > "$f"; exit 1`)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	_, err := vm.WaitFor(ctx, regexp.MustCompile(`RACKBOOT-DONE`))
	if !errors.Is(err, ErrExited) {
		t.Fatalf("err = %v, want ErrExited", err)
	}
	if !strings.Contains(vm.ConsoleTail(5), "kernel panic") {
		t.Errorf("ConsoleTail = %q", vm.ConsoleTail(5))
	}
}

func TestWaitForHonoursDeadline(t *testing.T) {
	vm := startFake(t, `: > "$f"; exec sleep 30`)
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	_, err := vm.WaitFor(ctx, regexp.MustCompile(`never`))
	if !errors.Is(err, ErrNoMatch) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want ErrNoMatch wrapping DeadlineExceeded", err)
	}
}

func TestTail(t *testing.T) {
	if got := Tail("a\nb\nc\n", 2); got != "b\nc" {
		t.Errorf("Tail = %q", got)
	}
	if got := Tail("a", 5); got != "a" {
		t.Errorf("Tail = %q", got)
	}
}
