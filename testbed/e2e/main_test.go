package e2e

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// nsPrefix starts the name of every namespace these tests create.
const nsPrefix = "rbe2e"

func TestMain(m *testing.M) {
	if os.Getenv("RACKBOOT_E2E") == "1" && os.Geteuid() == 0 {
		sweepStaleNamespaces()
	}
	os.Exit(m.Run())
}

// sweepStaleNamespaces deletes namespaces left by an earlier run of these
// tests that was killed (their creator's process is gone).
func sweepStaleNamespaces() {
	entries, err := os.ReadDir("/run/netns")
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, nsPrefix+"-") {
			continue
		}
		f := strings.Split(name, "-")
		if len(f) < 3 {
			continue
		}
		pid, err := strconv.Atoi(f[len(f)-2])
		if err != nil || pid == os.Getpid() {
			continue
		}
		if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err == nil {
			continue
		}
		exec.CommandContext(ctx, "ip", "netns", "del", name).Run()
	}
}
