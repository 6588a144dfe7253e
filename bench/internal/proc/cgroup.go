package proc

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// cgroup is a CPU-accounting control group holding one server and all its
// children, so that forked workers (tftpd-hpa forks one per transfer and
// does not wait for them in a way /proc can see) are counted.
type cgroup struct {
	dir   string
	procs string // file a process writes its pid to, to join
	v2    bool
}

var cgroupSeq atomic.Uint32 // only keeps names unique within this process

// newCgroup makes a cgroup under cgroup v1's cpuacct hierarchy or, failing
// that, under a cgroup v2 root. It returns nil when neither is writable.
func newCgroup(name string) *cgroup {
	leaf := fmt.Sprintf("rackbench-%d-%d-%s", os.Getpid(), cgroupSeq.Add(1), name)
	for _, c := range []struct {
		root string
		v2   bool
	}{
		{"/sys/fs/cgroup/cpuacct", false},
		{"/sys/fs/cgroup", true},
		{"/sys/fs/cgroup/unified", true},
	} {
		marker := "cpuacct.usage"
		if c.v2 {
			marker = "cgroup.controllers"
		}
		if _, err := os.Stat(filepath.Join(c.root, marker)); err != nil {
			continue
		}
		dir := filepath.Join(c.root, leaf)
		if err := os.Mkdir(dir, 0o755); err != nil {
			continue
		}
		return &cgroup{dir: dir, procs: filepath.Join(dir, "cgroup.procs"), v2: c.v2}
	}
	return nil
}

// usage is the CPU time used by every process that ever ran in the group.
func (c *cgroup) usage() (time.Duration, bool) {
	if c == nil {
		return 0, false
	}
	if !c.v2 {
		b, err := os.ReadFile(filepath.Join(c.dir, "cpuacct.usage"))
		n, perr := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		return time.Duration(n), err == nil && perr == nil
	}
	b, err := os.ReadFile(filepath.Join(c.dir, "cpu.stat"))
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "usage_usec "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			return time.Duration(n) * time.Microsecond, err == nil
		}
	}
	return 0, false
}

// remove deletes the group once its processes are gone.
func (c *cgroup) remove() {
	if c == nil {
		return
	}
	for deadline := time.Now().Add(2 * time.Second); ; {
		if err := os.Remove(c.dir); err == nil || os.IsNotExist(err) || time.Now().After(deadline) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}
