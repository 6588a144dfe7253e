package leasefile

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/rackboot/rackboot/dhcp"
)

// Name is the lease log's file name inside the data directory.
const Name = "dhcp-leases.log"

var (
	// ErrClosed is returned by changes made after Close.
	ErrClosed = errors.New("leasefile: closed")
	// ErrNotLeaseLog is returned by Open for a file that is not a lease log.
	ErrNotLeaseLog = errors.New("leasefile: not a lease log")
)

// compaction threshold: rewrite when the log holds more than
// 2×live+compactSlack records.
const compactSlack = 4096

// File is a durable dhcp.Leases. Create it with Open; Close it when done.
type File struct {
	mem  *dhcp.MemoryLeases
	path string
	log  *slog.Logger

	mu     sync.Mutex // guards cur, closed, err
	cur    *batch
	closed bool
	err    error // sticky write failure

	wake chan struct{}
	stop chan struct{}
	done chan struct{}

	// Owned by the writer goroutine.
	f       *os.File
	records int
	slack   int // compact when records > 2*live+slack
}

// batch is a group of changes written and synced together.
type batch struct {
	buf  []byte
	ops  []op
	done chan struct{}
	err  error
}

var _ dhcp.Leases = (*File)(nil)

// Open loads (or creates) the lease log in dir and starts its writer. A
// record cut short by a crash, or a corrupt one, ends the replay: it and
// everything after it are cut off, and a warning is logged.
func Open(dir string, log *slog.Logger) (*File, error) {
	return openSlack(dir, log, compactSlack)
}

func openSlack(dir string, log *slog.Logger, slack int) (*File, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("leasefile: %w", err)
	}
	lf := &File{
		mem:   dhcp.NewMemoryLeases(),
		path:  filepath.Join(dir, Name),
		log:   log,
		slack: slack,
		wake:  make(chan struct{}, 1),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
	}
	if err := lf.load(); err != nil {
		return nil, err
	}
	if lf.needsCompaction() {
		if err := lf.compact(); err != nil {
			lf.f.Close()
			return nil, err
		}
	}
	go lf.writer()
	return lf, nil
}

// load replays the log into memory and opens it for appending.
func (lf *File) load() error {
	data, err := os.ReadFile(lf.path)
	if errors.Is(err, os.ErrNotExist) {
		return lf.create()
	}
	if err != nil {
		return fmt.Errorf("leasefile: %w", err)
	}
	if len(data) < len(header) || string(data[:len(header)]) != header {
		return fmt.Errorf("%w: %s", ErrNotLeaseLog, lf.path)
	}
	ops, good, derr := decodeLog(data[len(header):])
	for _, o := range ops {
		apply(lf.mem, o)
	}
	lf.records = len(ops)
	f, err := os.OpenFile(lf.path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("leasefile: %w", err)
	}
	lf.f = f
	if derr != nil {
		lf.log.Warn("lease log: ignoring damaged tail", "file", lf.path, "offset", len(header)+good,
			"bytes", len(data)-len(header)-good, "err", derr)
		if err := f.Truncate(int64(len(header) + good)); err != nil {
			return fmt.Errorf("leasefile: cut damaged tail: %w", err)
		}
		if err := f.Sync(); err != nil {
			return fmt.Errorf("leasefile: %w", err)
		}
	}
	if _, err := f.Seek(0, 2); err != nil {
		return fmt.Errorf("leasefile: %w", err)
	}
	lf.log.Info("lease log loaded", "file", lf.path, "leases", lf.mem.Len(), "records", lf.records)
	return nil
}

// create writes an empty log.
func (lf *File) create() error {
	if err := writeFileSync(lf.path, []byte(header)); err != nil {
		return err
	}
	f, err := os.OpenFile(lf.path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("leasefile: %w", err)
	}
	lf.f = f
	return nil
}

func apply(m *dhcp.MemoryLeases, o op) {
	if o.del {
		m.Remove(o.lease.IP)
		return
	}
	m.Apply(o.lease)
}

// ByMAC returns the lease of mac.
func (lf *File) ByMAC(mac net.HardwareAddr) (dhcp.Lease, bool) { return lf.mem.ByMAC(mac) }

// ByIP returns the lease on ip.
func (lf *File) ByIP(ip netip.Addr) (dhcp.Lease, bool) { return lf.mem.ByIP(ip) }

// All yields every lease.
func (lf *File) All() iter.Seq[dhcp.Lease] { return lf.mem.All() }

// Len returns the number of leases held.
func (lf *File) Len() int { return lf.mem.Len() }

// Commit stores l durably; lookups see it once Commit returns.
func (lf *File) Commit(ctx context.Context, l dhcp.Lease) error {
	if !l.IP.Is4() {
		return fmt.Errorf("%w: lease address %v is not IPv4", dhcp.ErrLeaseStore, l.IP)
	}
	return lf.submit(ctx, op{lease: l})
}

// Release durably forgets the lease on ip.
func (lf *File) Release(ctx context.Context, ip netip.Addr) error {
	if _, ok := lf.mem.ByIP(ip); !ok || !ip.Is4() {
		return nil
	}
	return lf.submit(ctx, op{lease: dhcp.Lease{IP: ip}, del: true})
}

// submit adds o to the open batch and waits until that batch is on disk.
func (lf *File) submit(ctx context.Context, o op) error {
	lf.mu.Lock()
	if lf.closed {
		lf.mu.Unlock()
		return ErrClosed
	}
	if lf.err != nil {
		err := lf.err
		lf.mu.Unlock()
		return err
	}
	if lf.cur == nil {
		lf.cur = &batch{done: make(chan struct{})}
	}
	b := lf.cur
	b.buf = appendRecord(b.buf, o)
	b.ops = append(b.ops, o)
	lf.mu.Unlock()
	select {
	case lf.wake <- struct{}{}:
	default:
	}
	select {
	case <-b.done:
		return b.err
	case <-ctx.Done():
		return fmt.Errorf("leasefile: waiting for sync: %w", ctx.Err())
	}
}

// writer writes and syncs batches one after the other; while one is being
// synced, the next one fills up.
func (lf *File) writer() {
	defer close(lf.done)
	for {
		select {
		case <-lf.wake:
		case <-lf.stop:
			lf.flush()
			return
		}
		lf.flush()
	}
}

// flush writes the open batch, if any.
func (lf *File) flush() {
	lf.mu.Lock()
	b := lf.cur
	lf.cur = nil
	lf.mu.Unlock()
	if b == nil {
		return
	}
	b.err = lf.write(b)
	if b.err == nil {
		for _, o := range b.ops {
			apply(lf.mem, o)
		}
		lf.records += len(b.ops)
	} else {
		lf.mu.Lock()
		lf.err = b.err
		lf.mu.Unlock()
		lf.log.Error("lease log write failed; refusing further changes", "file", lf.path, "err", b.err)
	}
	close(b.done)
	if b.err == nil && lf.needsCompaction() {
		if err := lf.compact(); err != nil {
			lf.log.Error("lease log compaction failed", "file", lf.path, "err", err)
		}
	}
}

func (lf *File) write(b *batch) error {
	if _, err := lf.f.Write(b.buf); err != nil {
		return fmt.Errorf("%w: write %s: %w", dhcp.ErrLeaseStore, lf.path, err)
	}
	if err := fdatasync(lf.f); err != nil {
		return fmt.Errorf("%w: sync %s: %w", dhcp.ErrLeaseStore, lf.path, err)
	}
	return nil
}

func (lf *File) needsCompaction() bool { return lf.records > 2*lf.mem.Len()+lf.slack }

// compact rewrites the log with one record per live lease, dropping expired
// declines, and renames it over the old log.
func (lf *File) compact() error {
	now := time.Now()
	buf := []byte(header)
	n := 0
	for l := range lf.mem.All() {
		if l.Declined() && !l.Active(now) {
			lf.mem.Remove(l.IP)
			continue
		}
		buf = appendRecord(buf, op{lease: l})
		n++
	}
	tmp := lf.path + ".tmp"
	if err := writeFileSync(tmp, buf); err != nil {
		return err
	}
	if err := os.Rename(tmp, lf.path); err != nil {
		return fmt.Errorf("leasefile: compact: %w", err)
	}
	if err := syncDir(filepath.Dir(lf.path)); err != nil {
		return err
	}
	f, err := os.OpenFile(lf.path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("leasefile: compact: %w", err)
	}
	lf.f.Close()
	lf.f, lf.records = f, n
	lf.log.Info("lease log compacted", "file", lf.path, "leases", n)
	return nil
}

// Close writes what is pending, stops the writer and closes the file.
// Changes after Close fail with ErrClosed.
func (lf *File) Close() error {
	lf.mu.Lock()
	if lf.closed {
		lf.mu.Unlock()
		return nil
	}
	lf.closed = true
	lf.mu.Unlock()
	close(lf.stop)
	<-lf.done
	if err := lf.f.Close(); err != nil {
		return fmt.Errorf("leasefile: %w", err)
	}
	return nil
}
