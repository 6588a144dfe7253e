package systemdvm

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ErrVM is returned when the VM or its command channel fails (not when a
// command in it fails: that is Result.Status).
var ErrVM = errors.New("systemdvm: VM")

// Config is one VM: the image, a directory of files for the guest (made
// into an ext4 disk it sees as /dev/vdb, read-only) and a work directory
// holding the console log and the command socket.
type Config struct {
	Image    Image
	Files    string // "" attaches no second disk
	Dir      string
	MemoryMB int // default 1024
}

// VM is a running QEMU with Debian booting systemd as PID 1. Its serial
// console goes to ConsolePath; commands go through the virtio-serial port
// rackboot.cmd, which rackboot-testrunner serves inside.
type VM struct {
	ConsolePath string

	cmd  *exec.Cmd
	done chan struct{}

	mu     sync.Mutex
	conn   net.Conn
	reader *bufio.Reader
	seq    int
}

// Start boots the VM: Debian's kernel and initramfs directly (no
// firmware boot loader), the root image as /dev/vda with writes going to a
// throw-away snapshot, and no network device at all.
func Start(ctx context.Context, cfg Config) (*VM, error) {
	if cfg.MemoryMB == 0 {
		cfg.MemoryMB = 1024
	}
	sock := filepath.Join(cfg.Dir, "cmd.sock")
	vm := &VM{ConsolePath: filepath.Join(cfg.Dir, "console.log"), done: make(chan struct{})}
	args := []string{
		"-accel", "tcg", "-cpu", "max", "-m", strconv.Itoa(cfg.MemoryMB), "-smp", "1",
		"-nographic", "-monitor", "none", "-parallel", "none", "-no-reboot", "-nic", "none",
		"-kernel", cfg.Image.Kernel, "-initrd", cfg.Image.Initrd,
		"-append", "root=/dev/vda rw console=ttyS0 panic=-1 systemd.show_status=1",
		"-drive", "file=" + cfg.Image.Root + ",format=raw,if=virtio,snapshot=on",
		"-serial", "file:" + vm.ConsolePath,
		"-device", "virtio-serial-pci",
		"-chardev", "socket,id=cmd,path=" + sock + ",server=on,wait=off",
		"-device", "virtserialport,chardev=cmd,name=rackboot.cmd",
	}
	if cfg.Files != "" {
		img, err := filesDisk(ctx, cfg.Files, filepath.Join(cfg.Dir, "files.img"))
		if err != nil {
			return nil, err
		}
		args = append(args, "-drive", "file="+img+",format=raw,if=virtio,readonly=on")
	}
	vm.cmd = exec.CommandContext(ctx, "qemu-system-x86_64", args...)
	var stderr strings.Builder
	vm.cmd.Stdout, vm.cmd.Stderr = &stderr, &stderr
	vm.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := vm.cmd.Start(); err != nil {
		return nil, fmt.Errorf("%w: start qemu: %w", ErrVM, err)
	}
	go func() { vm.cmd.Wait(); close(vm.done) }()
	conn, err := dialWhenThere(ctx, sock, vm.done)
	if err != nil {
		vm.Stop()
		return nil, fmt.Errorf("%w: %w: %s", ErrVM, err, stderr.String())
	}
	vm.conn, vm.reader = conn, bufio.NewReaderSize(conn, 1<<20)
	return vm, nil
}

// dialWhenThere connects to QEMU's command socket once QEMU made it.
func dialWhenThere(ctx context.Context, sock string, done <-chan struct{}) (net.Conn, error) {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		conn, err := net.Dial("unix", sock)
		if err == nil {
			return conn, nil
		}
		select {
		case <-done:
			return nil, fmt.Errorf("qemu exited before making %s", sock)
		case <-ctx.Done():
			return nil, fmt.Errorf("connecting to %s: %w", sock, ctx.Err())
		case <-tick.C:
		}
	}
}

// filesDisk packs dir into an ext4 image without mounting anything.
func filesDisk(ctx context.Context, dir, img string) (string, error) {
	var size int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil {
			size += fi.Size() + 4096
		}
		return nil
	})
	mb := size>>20 + 32
	out, err := exec.CommandContext(ctx, "mkfs.ext4", "-q", "-F", "-L", "rackboot-files", "-d", dir, img, fmt.Sprintf("%dM", mb)).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%w: mkfs.ext4 -d %s: %w\n%s", ErrVM, dir, err, out)
	}
	return img, nil
}

// Result is what a script run in the VM did.
type Result struct {
	Status int    // exit status
	Output string // stdout and stderr together
}

// Run runs script with sh inside the VM and waits for it (or ctx).
func (vm *VM) Run(ctx context.Context, script string) (Result, error) {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	vm.seq++
	id := strconv.Itoa(vm.seq)
	vm.conn.SetDeadline(time.Time{})
	stop := context.AfterFunc(ctx, func() { vm.conn.SetDeadline(time.Now()) })
	defer stop()
	line := id + " " + base64.StdEncoding.EncodeToString([]byte(script)) + "\n"
	if _, err := vm.conn.Write([]byte(line)); err != nil {
		return Result{}, vm.channelErr(ctx, err)
	}
	for {
		text, err := vm.reader.ReadString('\n')
		if err != nil {
			return Result{}, vm.channelErr(ctx, err)
		}
		f := strings.Fields(text)
		if len(f) < 3 || f[0] != "RESULT" || f[1] != id {
			continue // an earlier command's late answer
		}
		rc, _ := strconv.Atoi(f[2])
		var out []byte
		if len(f) > 3 {
			if out, err = base64.StdEncoding.DecodeString(f[3]); err != nil {
				return Result{}, fmt.Errorf("%w: undecodable output: %w", ErrVM, err)
			}
		}
		return Result{Status: rc, Output: string(out)}, nil
	}
}

func (vm *VM) channelErr(ctx context.Context, err error) error {
	select {
	case <-vm.done:
		return fmt.Errorf("%w: the VM exited (console: %s): %w", ErrVM, vm.ConsolePath, err)
	default:
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%w: no answer from the VM's command runner: %w", ErrVM, ctx.Err())
	}
	return fmt.Errorf("%w: command channel: %w", ErrVM, err)
}

// ConsoleTail is the last n lines of the serial console.
func (vm *VM) ConsoleTail(n int) string {
	data, _ := os.ReadFile(vm.ConsolePath)
	return tail(string(data), n)
}

// Stop ends QEMU (the snapshot's writes go with it).
func (vm *VM) Stop() {
	if vm.conn != nil {
		vm.conn.Close()
	}
	select {
	case <-vm.done:
		return
	default:
	}
	vm.cmd.Process.Kill()
	<-vm.done
}
