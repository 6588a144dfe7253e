package cluster

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// mountSmall mounts a tmpfs of size bytes on a new directory and unmounts
// it when the test ends. It needs root: the test is skipped otherwise.
func mountSmall(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("mount tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Logf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// fill writes a file in dir until the file system is full.
func fill(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := bytes.Repeat([]byte{0xaa}, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			return path
		}
	}
}

// A full disk on one appliance: it stops taking part and says so, the
// others carry on, and it catches up once it has room again.
func TestDiskFullFollower(t *testing.T) {
	r := newRack(t, 3)
	small := r.nodes[2]
	small.dir = mountSmall(t, "16m")
	r.start(r.nodes...)
	for r.leader() == small {
		r.stop(small)
		r.start(small)
	}
	ld := r.leader()
	writeIE(t, ld.st, 0)
	filler := fill(t, small.dir)

	for i := 1; i <= 400; i++ {
		writeIE(t, r.nodes[i%2].st, i)
	}
	small.log.waitLog(t, "failed to append to logs")
	if hasIE(small.st, 400) {
		t.Error("the full node applied a write it could not store")
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	writeIE(t, ld.st, 401)
	r.converge()
	if !hasIE(small.st, 401) {
		t.Error("the node did not catch up once it had room")
	}
}
