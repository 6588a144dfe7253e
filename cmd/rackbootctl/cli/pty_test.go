package cli_test

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// terminal is a pseudo-terminal: what the CLI writes to tty can be read
// back from the master side.
type terminal struct {
	tty  *os.File
	mu   sync.Mutex
	got  bytes.Buffer
	done chan struct{}
}

// openTerminal opens a pty pair (closed when the test ends) and copies
// everything written to its terminal side into a buffer.
func openTerminal(t *testing.T) *terminal {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("ptsname: %v", err)
	}
	tty, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Raw output: no \n → \r\n translation, so the bytes are the CLI's.
	if tios, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS); err == nil {
		tios.Oflag &^= unix.OPOST
		unix.IoctlSetTermios(int(tty.Fd()), unix.TCSETS, tios)
	}
	term := &terminal{tty: tty, done: make(chan struct{})}
	go func() {
		defer close(term.done)
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			term.mu.Lock()
			term.got.Write(buf[:n])
			term.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		tty.Close()
		ptmx.Close()
		<-term.done
	})
	return term
}

// output closes the terminal side and returns all that was written to it.
func (term *terminal) output() string {
	term.tty.Close()
	<-term.done
	term.mu.Lock()
	defer term.mu.Unlock()
	return term.got.String()
}

// wait polls until the terminal has shown want, up to a deadline.
func (term *terminal) wait(t *testing.T, want string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		term.mu.Lock()
		got := term.got.String()
		term.mu.Unlock()
		if strings.Contains(got, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the terminal never showed %q:\n%s", want, got)
		}
		<-time.After(20 * time.Millisecond)
	}
}
