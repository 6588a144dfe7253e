package cluster

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rackboot/rackboot/dhcp"
	"github.com/rackboot/rackboot/engine"
)

// Environment of the crash helper: the test binary re-executed with these
// set opens the store in the directory and writes until it is killed.
const (
	envCrashDir   = "RACKBOOT_CLUSTER_CRASH_DIR"
	envCrashRound = "RACKBOOT_CLUSTER_CRASH_ROUND"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(envCrashDir); dir != "" {
		if err := crashHelper(dir, os.Getenv(envCrashRound)); err != nil {
			fmt.Fprintln(os.Stderr, "crash helper:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// crashHelper commits leases (through engine.Leases, so in batches) and
// creates infra-envs from several goroutines, printing "lease IP" or
// "ie ID" once each write is acknowledged. It never returns normally.
func crashHelper(dir, round string) error {
	var r int
	if _, err := fmt.Sscan(round, &r); err != nil {
		return err
	}
	ctx := context.Background()
	s, err := Open(ctx, testConfig(dir))
	if err != nil {
		return err
	}
	leases := engine.NewLeases(s)
	var out sync.Mutex
	ack := func(format string, args ...any) {
		out.Lock()
		defer out.Unlock()
		fmt.Fprintf(os.Stdout, format+"\n", args...)
	}
	errc := make(chan error)
	for w := range 8 {
		go func() {
			for i := 0; ; i++ {
				ip := crashIP(r, w, i)
				mac := net.HardwareAddr{2, byte(r), byte(w), byte(i >> 16), byte(i >> 8), byte(i)}
				if err := leases.Commit(ctx, dhcp.Lease{IP: ip, MAC: mac, Expires: time.Now().Add(time.Hour)}); err != nil {
					errc <- err
					return
				}
				ack("lease %s", ip)
			}
		}()
	}
	go func() {
		for i := 0; ; i++ {
			id := fmt.Sprintf("cccccccc-%04x-4000-8000-%012x", r, i)
			if _, err := s.Apply(ctx, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: id, Name: "crash"}}); err != nil {
				errc <- err
				return
			}
			ack("ie %s", id)
		}
	}()
	return <-errc
}

func crashIP(round, worker, i int) netip.Addr {
	return netip.AddrFrom4([4]byte{10, byte(round*8 + worker), byte(i >> 8), byte(i)})
}

// kill -9 at a random moment loses no acknowledged write.
func TestKillLosesNoAcknowledgedWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills helper processes")
	}
	dir := t.TempDir()
	var acked []string
	for round := range 5 {
		lines := crashRound(t, dir, round, 20+rand.IntN(400))
		acked = append(acked, lines...)
		s := open(t, testConfig(dir))
		missing := 0
		s.Read(func(m *engine.Model) {
			for _, a := range acked {
				if !present(m, a) {
					missing++
					if missing < 5 {
						t.Errorf("round %d: acknowledged %q is missing", round, a)
					}
				}
			}
		})
		if missing > 0 {
			t.Fatalf("round %d: %d of %d acknowledged writes lost", round, missing, len(acked))
		}
		t.Logf("round %d: killed after %d acknowledged writes; all %d present", round, len(lines), len(acked))
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// crashRound runs the helper, kills it with SIGKILL once it has
// acknowledged after writes, and returns every acknowledgement it printed.
func crashRound(t *testing.T, dir string, round, after int) []string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envCrashDir+"="+dir, fmt.Sprintf("%s=%d", envCrashRound, round))
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	rd := bufio.NewReader(stdout)
	var lines []string
	killed := false
	for {
		// A line cut short by the kill has no newline: it is dropped.
		line, err := rd.ReadString('\n')
		if err != nil {
			break
		}
		lines = append(lines, strings.TrimSuffix(line, "\n"))
		if len(lines) == after && !killed {
			cmd.Process.Signal(syscall.SIGKILL)
			killed = true
		}
	}
	err = cmd.Wait()
	if !killed {
		t.Fatalf("helper exited after %d writes: %v", len(lines), err)
	}
	return lines
}

func present(m *engine.Model, ack string) bool {
	kind, val, _ := strings.Cut(ack, " ")
	if kind == "lease" {
		_, ok := m.LeaseByIP(netip.MustParseAddr(val))
		return ok
	}
	_, ok := m.InfraEnv(val)
	return ok
}
