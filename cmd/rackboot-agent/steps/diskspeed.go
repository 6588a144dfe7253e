package steps

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rackboot/rackboot/engine/models"
)

// The installation-disk-speed-check writes what upstream's fio check
// writes (--rw=write --ioengine=sync --size=22m --bs=2300 --fdatasync=1):
// 2300-byte blocks from the start of the disk, each followed by
// fdatasync, and reports the 99th percentile of the fdatasync durations.
const (
	DiskSpeedBlock       = 2300
	DiskSpeedBytes       = 22 << 20
	DiskSpeedThresholdMs = 10 // upstream's default installation_disk_speed_threshold_ms
	DiskSpeedTimeout     = 8 * time.Minute
)

// ErrDiskSlow: the disk's fdatasync took longer than the threshold.
var ErrDiskSlow = errors.New("steps: installation disk too slow")

// OutputError is a failed step that still has an output to send (the disk
// speed measured on a disk found too slow).
type OutputError struct {
	Output string
	Err    error
}

func (e *OutputError) Error() string { return e.Err.Error() }
func (e *OutputError) Unwrap() error { return e.Err }

func (d Deps) diskSpeed(ctx context.Context, args []string) (string, error) {
	var req models.DiskSpeedCheckRequest
	if err := oneJSONArg("installation-disk-speed-check", args, &req); err != nil {
		return "", err
	}
	if !filepath.IsAbs(req.Path) || filepath.Clean(req.Path) != req.Path {
		return "", fmt.Errorf("%w: installation-disk-speed-check: path %q is not a clean absolute path", ErrArgs, req.Path)
	}
	threshold := req.ThresholdMs
	if threshold <= 0 {
		threshold = DiskSpeedThresholdMs
	}
	size := int64(DiskSpeedBytes)
	if d.DiskSpeedBytes > 0 {
		size = d.DiskSpeedBytes
	}
	p99, err := syncLatency(ctx, req.Path, size)
	if err != nil {
		return "", err
	}
	ms := p99.Milliseconds()
	out, err := marshal(models.DiskSpeedCheckResponse{IoSyncDuration: ms, Path: req.Path})
	if err != nil {
		return "", err
	}
	if ms > threshold {
		return "", &OutputError{Output: out, Err: fmt.Errorf("%w: %s: fdatasync took %d ms (99th percentile), more than %d ms",
			ErrDiskSlow, req.Path, ms, threshold)}
	}
	return out, nil
}

// syncLatency writes size bytes to path in DiskSpeedBlock blocks from
// offset 0, each followed by fdatasync, and returns the 99th percentile
// fdatasync duration. path must be a block device or a regular file.
func syncLatency(ctx context.Context, path string, size int64) (time.Duration, error) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, fmt.Errorf("steps: installation-disk-speed-check: %w", err)
	}
	if m := st.Mode(); m&os.ModeDevice == 0 && !m.IsRegular() || m&os.ModeCharDevice != 0 {
		return 0, fmt.Errorf("%w: installation-disk-speed-check: %s is neither a block device nor a file", ErrArgs, path)
	}
	if st.Mode()&os.ModeDevice != 0 {
		if err := diskInUse(path); err != nil {
			return 0, err
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return 0, fmt.Errorf("steps: installation-disk-speed-check: %w", err)
	}
	defer f.Close()
	buf := make([]byte, DiskSpeedBlock)
	var syncs []time.Duration
	for off := int64(0); off < size; off += DiskSpeedBlock {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		if _, err := f.WriteAt(buf, off); err != nil {
			return 0, fmt.Errorf("steps: installation-disk-speed-check: write %s: %w", path, err)
		}
		start := time.Now()
		if err := unix.Fdatasync(int(f.Fd())); err != nil {
			return 0, fmt.Errorf("steps: installation-disk-speed-check: fdatasync %s: %w", path, err)
		}
		syncs = append(syncs, time.Since(start))
	}
	slices.Sort(syncs)
	return syncs[(len(syncs)*99+99)/100-1], nil
}

// ErrDiskInUse: the disk, or a partition of it, is mounted or held by
// another device (LVM, RAID, dm): writing to it would destroy a running
// system.
var ErrDiskInUse = errors.New("steps: disk in use")

// diskInUse refuses block device path when it or one of its partitions is
// mounted (/proc/self/mountinfo) or has holders (/sys/.../holders): the
// check writes over the start of the disk, which is only safe on the
// installation disk of a live-booted host.
func diskInUse(path string) error {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return fmt.Errorf("steps: installation-disk-speed-check: %w", err)
	}
	disk, err := filepath.EvalSymlinks(fmt.Sprintf("/sys/dev/block/%d:%d", unix.Major(st.Rdev), unix.Minor(st.Rdev)))
	if err != nil {
		return fmt.Errorf("steps: installation-disk-speed-check: %s: %w", path, err)
	}
	if holders, _ := os.ReadDir(filepath.Join(disk, "holders")); len(holders) > 0 {
		return fmt.Errorf("%w: %s is held by %s", ErrDiskInUse, path, holders[0].Name())
	}
	parts, _ := filepath.Glob(filepath.Join(disk, "*", "partition"))
	for _, p := range parts {
		if holders, _ := os.ReadDir(filepath.Join(filepath.Dir(p), "holders")); len(holders) > 0 {
			return fmt.Errorf("%w: a partition of %s is held by %s", ErrDiskInUse, path, holders[0].Name())
		}
	}
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return fmt.Errorf("steps: installation-disk-speed-check: %w", err)
	}
	for _, line := range strings.Split(string(mounts), "\n") {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		dev, err := filepath.EvalSymlinks("/sys/dev/block/" + f[2])
		if err != nil {
			continue // not a block device (tmpfs, proc, overlay...)
		}
		if dev == disk || filepath.Dir(dev) == disk {
			return fmt.Errorf("%w: %s (or a partition of it) is mounted on %s", ErrDiskInUse, path, f[4])
		}
	}
	return nil
}
