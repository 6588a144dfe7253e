package steps

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// loopAttempts bounds the retries when another process takes the free
// loop device first.
const loopAttempts = 5

// finishCoreOS mounts the boot file system of the CoreOS image written on
// in's device (a loop device over that partition, so the device itself
// need not be re-read) and applies e to it.
func (in *installer) finishCoreOS(p Partition, e bootEdits) (err error) {
	loop, err := attachLoop(in.dev, p.Offset(), p.Size())
	if err != nil {
		return fail(ErrDevice, err, "attaching a loop device to the boot partition of %s", in.args.BootDevice)
	}
	defer func() {
		_ = unix.IoctlSetInt(int(loop.Fd()), unix.LOOP_CLR_FD, 0) // autoclear does it too
		loop.Close()
	}()
	dir, err := os.MkdirTemp("", "rackboot-boot-")
	if err != nil {
		return fail(ErrDevice, err, "creating a mount point for the boot file system")
	}
	defer os.Remove(dir)
	if err := unix.Mount(loop.Name(), dir, "ext4", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fail(ErrNoPartition, err, "mounting the boot file system (ext4, GPT partition %q)", p.Name)
	}
	defer func() {
		if uerr := unix.Unmount(dir, 0); uerr != nil && err == nil {
			err = fail(ErrDevice, uerr, "unmounting the boot file system")
		}
	}()
	if err := bootfsFiles(dir, e); err != nil {
		return err
	}
	in.log.Info("wrote the CoreOS boot file system", "device", in.args.BootDevice, "partition", p.Index,
		"append_kargs", len(e.appendArgs), "delete_kargs", len(e.deleteArgs), "keyfiles", len(e.keyfiles))
	return nil
}

// attachLoop binds a free loop device to [off, off+size) of dev; the loop
// device goes away when it is closed and unmounted (autoclear).
func attachLoop(dev *os.File, off, size int64) (*os.File, error) {
	ctl, err := os.OpenFile("/dev/loop-control", os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	defer ctl.Close()
	for attempt := 0; ; attempt++ {
		n, err := unix.IoctlRetInt(int(ctl.Fd()), unix.LOOP_CTL_GET_FREE)
		if err != nil {
			return nil, fmt.Errorf("LOOP_CTL_GET_FREE: %w", err)
		}
		loop, err := os.OpenFile(fmt.Sprintf("/dev/loop%d", n), os.O_RDWR, 0)
		if err != nil {
			return nil, err
		}
		cfg := unix.LoopConfig{Fd: uint32(dev.Fd()), Info: unix.LoopInfo64{
			Offset: uint64(off), Sizelimit: uint64(size), Flags: unix.LO_FLAGS_AUTOCLEAR}}
		err = unix.IoctlLoopConfigure(int(loop.Fd()), &cfg)
		if err == nil {
			return loop, nil
		}
		loop.Close()
		if !errors.Is(err, unix.EBUSY) || attempt+1 >= loopAttempts {
			return nil, fmt.Errorf("LOOP_CONFIGURE: %w", err)
		}
	}
}
