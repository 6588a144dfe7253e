package installer

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// stderrTail is how much of openshift-install's stderr an error keeps.
const stderrTail = 4 << 10

// waitDelay bounds the wait for the output pipes once the process is gone
// (a grandchild may hold them).
const waitDelay = 5 * time.Second

// runCommand runs name with args and env in its own process group; when
// ctx ends the whole group is killed. It returns the tail of stderr.
func runCommand(ctx context.Context, name string, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = waitDelay
	var tail tailBuffer
	cmd.Stderr = &tail
	err := cmd.Run()
	if err != nil && ctx.Err() != nil {
		err = fmt.Errorf("%w (%v)", ctx.Err(), err)
	}
	return tail.String(), err
}

// tailBuffer keeps the last stderrTail bytes written to it. Once it has
// dropped bytes, String starts at the first whole line, so that no half
// of a secret (which scrubbing could not recognise) is shown.
type tailBuffer struct {
	mu      sync.Mutex
	buf     []byte
	dropped bool
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - stderrTail; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.dropped = true
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := string(t.buf)
	if t.dropped {
		_, s, _ = strings.Cut(s, "\n")
	}
	return s
}
