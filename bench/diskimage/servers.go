package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rackboot/rackboot/bench/internal/harness"
	"github.com/rackboot/rackboot/bench/internal/httpbench"
	"github.com/rackboot/rackboot/bench/internal/peers"
	"github.com/rackboot/rackboot/bench/internal/proc"
	"github.com/rackboot/rackboot/bench/internal/topo"
)

// image is the disk image every server sends.
type image struct {
	dir    string // holds disk.img (nginx's root) and the rackbootd profile
	path   string
	size   int64
	sha256 string
}

// makeImage writes size bytes of pseudo-random data (nothing along the way
// compresses it) and the small files a rackbootd profile needs.
func makeImage(workDir string, size int64) (image, error) {
	img := image{dir: filepath.Join(workDir, "www"), size: size}
	img.path = filepath.Join(img.dir, "disk.img")
	if err := os.MkdirAll(filepath.Join(workDir, "tftproot"), 0o755); err != nil {
		return img, err
	}
	if err := os.MkdirAll(img.dir, 0o755); err != nil {
		return img, err
	}
	f, err := os.Create(img.path)
	if err != nil {
		return img, err
	}
	h := sha256.New()
	src := rand.NewChaCha8([32]byte{'r', 'a', 'c', 'k', 'b', 'o', 'o', 't'})
	_, err = io.CopyN(io.MultiWriter(f, h), src, size)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return img, fmt.Errorf("diskimage: writing the image: %w", err)
	}
	img.sha256 = hex.EncodeToString(h.Sum(nil))
	ign := `{"ignition":{"version":"3.4.0"}}` + "\n"
	for name, data := range map[string]string{"initrd.img": strings.Repeat("x", 4096), "bench.ign": ign} {
		if err := os.WriteFile(filepath.Join(workDir, name), []byte(data), 0o644); err != nil {
			return img, err
		}
	}
	return img, nil
}

// server is one contender: how to start it and the URL each client gets.
type server struct {
	name  string
	start func(ctx context.Context, pair *topo.Pair, dir string) (*proc.Proc, error)
	// prepare, when set, runs once the server answers, before the URLs
	// are asked for (the rootfs route learns its URL from an iPXE script).
	prepare func(ctx context.Context, pair *topo.Pair, dir string) error
	urls    func(n int) []string
}

// Routes rackbootd can send the image by.
const (
	routeKernel = "kernel" // GET /boot/<mac>/kernel of a profile whose kernel is the image
	routeImage  = "image"  // GET /images/bench/disk.img of an [[image_set]] with disk_image
	routeRootfs = "rootfs" // coreos.live.rootfs_url of a CoreOS image set (live_iso + live_rootfs)
)

func servers(o options, img image) []server {
	work := filepath.Dir(img.dir)
	rb := peers.Rackbootd{Bin: o.Rackbootd, DHCPMode: "off", TFTPRoot: filepath.Join(work, "tftproot"),
		Kernel: img.path, Initrd: filepath.Join(work, "initrd.img"), Ignition: filepath.Join(work, "bench.ign")}
	var rootfs string // the rootfs route's URL, from the iPXE script
	rackbootd := server{
		name: "rackbootd",
		start: func(ctx context.Context, pair *topo.Pair, dir string) (*proc.Proc, error) {
			if o.route == routeRootfs {
				return startLive(ctx, pair, dir, rb, img, filepath.Join(filepath.Dir(o.Rackbootd), "agent"))
			}
			return startRackbootd(ctx, pair, dir, rb, o.route, img)
		},
		urls: func(n int) []string {
			u := make([]string, n)
			for i := range u {
				// One MAC per simulated host on the kernel route.
				u[i] = fmt.Sprintf("http://%s:%d/boot/52-54-00-dd-%02x-%02x/kernel", topo.ServerIP, peers.RackbootdHTTPPort, i>>8, i&0xff)
				switch o.route {
				case routeImage:
					u[i] = fmt.Sprintf("http://%s:%d/images/bench/disk.img", topo.ServerIP, peers.RackbootdHTTPPort)
				case routeRootfs:
					u[i] = rootfs
				}
			}
			return u
		},
	}
	if o.route == routeRootfs {
		rackbootd.prepare = func(ctx context.Context, pair *topo.Pair, dir string) (err error) {
			rootfs, err = liveRootfsURL(ctx, pair, filepath.Join(dir, "data"))
			return err
		}
	}
	return []server{rackbootd, {
		name: "nginx",
		start: func(ctx context.Context, pair *topo.Pair, dir string) (*proc.Proc, error) {
			return peers.Nginx(ctx, pair.Server, dir, img.dir)
		},
		urls: func(n int) []string {
			u := make([]string, n)
			for i := range u {
				u[i] = fmt.Sprintf("http://%s:%d/disk.img", topo.ServerIP, peers.NginxPort)
			}
			return u
		},
	}}
}

// bench runs every server o.rounds times, in turns.
func bench(ctx context.Context, pair *topo.Pair, o options, img image, rep *report) error {
	var errs []error
	for round := 0; round < o.rounds; round++ {
		for i, s := range servers(o, img) {
			run, err := measure(ctx, pair, o, img, s, rep)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", s.name, err))
				rep.rows[i].note = "failed: " + err.Error()
				continue
			}
			rep.rows[i].add(run)
			slog.Info("run", "server", s.name, "round", round+1, "MB/s", fmt.Sprintf("%.0f", run.MBps()),
				"downloads", run.Downloads, "errors", run.Errors, "server_cpu", run.cpu)
		}
	}
	return errors.Join(errs...)
}

// measure starts s, checks one full download, waits for a quiet machine,
// and runs the load once.
func measure(ctx context.Context, pair *topo.Pair, o options, img image, s server, rep *report) (run, error) {
	dir, err := o.Subdir(s.name)
	if err != nil {
		return run{}, err
	}
	p, err := s.start(ctx, pair, dir)
	if err != nil {
		return run{}, err
	}
	defer p.Stop()
	var urls []string
	err = p.WaitReady(ctx, 30*time.Second, func(ctx context.Context) error {
		if s.prepare != nil {
			if err := s.prepare(ctx, pair, dir); err != nil {
				return err
			}
		}
		urls = s.urls(o.clients)
		r, err := load(ctx, pair, dir, download(urls[:1], img, true))
		if err == nil && r.Downloads != 1 {
			err = errors.New(r.FirstError)
		}
		return err
	})
	if err != nil {
		return run{}, err
	}
	if _, quiet := proc.WaitQuiet(ctx, 0.3, o.QuietWait); !quiet {
		rep.busyRuns++
	}
	cpu0 := p.CPU()
	r, err := load(ctx, pair, dir, download(urls, img, o.hash))
	if err == nil && r.Errors > 0 {
		err = fmt.Errorf("%d of %d downloads failed: %s", r.Errors, len(urls), r.FirstError)
	}
	return run{Result: r, cpu: p.CPU() - cpu0}, err
}

// download is what every simulated installing host does: fetch the image
// once in 1 MiB reads (the install step's block size) and, with check,
// stream it through sha256 and compare the sum (the install step also writes
// it to disk: not measured here).
func download(urls []string, img image, check bool) httpbench.Load {
	l := httpbench.Load{URLs: urls, Size: img.size, Rounds: 1, Block: 1 << 20}
	if check {
		l.SHA256 = img.sha256
	}
	return l
}

// load runs the load generator in the client namespace.
func load(ctx context.Context, pair *topo.Pair, dir string, l httpbench.Load) (httpbench.Result, error) {
	var r httpbench.Result
	args, err := l.Args(dir, 10*time.Minute)
	if err != nil {
		return r, err
	}
	err = harness.Spawn(ctx, pair.Client, &r, args...)
	return r, err
}

// startRackbootd starts rackbootd with bench/'s configuration plus, for
// the image route, an image set whose disk image is the image.
func startRackbootd(ctx context.Context, pair *topo.Pair, dir string, rb peers.Rackbootd, route string, img image) (*proc.Proc, error) {
	if route == routeKernel {
		return rb.Start(ctx, pair.Server, dir)
	}
	roles := filepath.Join(dir, "roles")
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(roles, 0o755); err != nil {
		return nil, err
	}
	for _, r := range []string{"bootstrap.ign", "master.ign", "worker.ign"} {
		if err := os.WriteFile(filepath.Join(roles, r), []byte(`{"ignition":{"version":"3.4.0"}}`), 0o644); err != nil {
			return nil, err
		}
	}
	conf := rb.Config(dir) + fmt.Sprintf(`
[[image_set]]
name = "bench"
profile = "bench"
disk_image = %q
disk_image_sha256 = %q
role_ignition_dir = %q
`, img.path, img.sha256, roles)
	path := filepath.Join(dir, "rackboot.toml")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		return nil, err
	}
	return proc.Start(ctx, pair.Server, "rackbootd", filepath.Join(dir, "rackbootd.log"), nil, rb.Bin, "--config", path)
}
