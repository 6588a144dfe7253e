package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/rackboot/rackboot/boot"
	"github.com/rackboot/rackboot/boot/osimages"
	"github.com/rackboot/rackboot/cluster"
	"github.com/rackboot/rackboot/cmd/rackbootd/internal/config"
	"github.com/rackboot/rackboot/dhcp"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/api"
	"github.com/rackboot/rackboot/engine/bootsel"
	"github.com/rackboot/rackboot/engine/kubeapi"
	"github.com/rackboot/rackboot/tftp"
	"github.com/rackboot/rackboot/vip"
)

var errServiceEnded = errors.New("a service stopped serving")

// daemon is the running services and the configuration they were built
// from. Only the main loop touches cfg.
type daemon struct {
	cfg    *config.Config
	log    *slog.Logger
	level  *slog.LevelVar
	notify notifier
	holder *boot.Holder

	store *cluster.Store // the replicated state, raft under data_dir
	vip   *vip.VIP       // the service address, held while leading (ha.go); nil when not configured
	disk  *diskGuard     // whether data_dir is full (diskguard.go), set by runLeader

	sel     *bootsel.Selector // the engine's boot choices
	chooser *bootsel.Chain    // sel, then the profile catalog
	api     http.Handler      // the assisted-installer API, guarded
	apiOpts api.Options
	bmh     bmhParts         // BMC credentials sealer, discovery ISOs (bmh.go)
	kube    *kubeapi.Handler // the Kubernetes-compatible API (kube.go)

	dhcp      *dhcp.Server // nil when dhcp.mode is off
	dhcpConns []net.PacketConn

	tftp     *tftp.Server // nil when tftp.enabled is false
	tftpConn net.PacketConn

	http       *http.Server
	httpLn     net.Listener
	httpCancel context.CancelFunc // ends the requests' base context (watch streams) at stop

	pprof   *http.Server // nil unless server.pprof_listen is set (pprof.go)
	pprofLn net.Listener

	// imageSets are the configuration file's image sets, which the
	// leader-side sync reads while a reload may replace them.
	imageSets atomic.Pointer[[]config.ImageSet]
	// osImages are the image sets the AgentServiceConfig adds
	// (osimages.go); osImagesChanged asks the main loop to reload.
	osImages        atomic.Pointer[[]osimages.Set]
	osImagesChanged chan struct{}
	asc             *ascReporter // the AgentServiceConfig's status (ascstatus.go)

	wg                     sync.WaitGroup
	reloadsOK, reloadsFail atomic.Uint64
	lastReloadFailed       atomic.Bool
	loops                  loopStats // the controllers' counters (metrics.go)
}

// newDaemon builds every enabled service and opens its sockets, so that a
// port in use fails before systemd hears that the daemon is ready.
func newDaemon(ctx context.Context, ld *loaded, log *slog.Logger, level *slog.LevelVar) (_ *daemon, err error) {
	d := &daemon{cfg: ld.cfg, log: log, level: level, notify: notifier{log: log}, holder: boot.NewHolder(ld.catalog),
		osImagesChanged: make(chan struct{}, 1)}
	d.imageSets.Store(&ld.cfg.ImageSets)
	d.osImages.Store(&ld.osImages)
	defer func() {
		if err != nil {
			d.close()
		}
	}()
	if err := d.openStore(ctx); err != nil {
		return nil, err
	}
	d.asc = newASCReporter(d.store, log.With("service", "osimages"), ld.osImagesOut)
	if err := d.newEngine(ctx); err != nil {
		return nil, err
	}
	if err := d.newVIP(); err != nil {
		return nil, err
	}
	if err := d.newDHCP(ctx); err != nil {
		return nil, err
	}
	if err := d.newTFTP(); err != nil {
		return nil, err
	}
	if err := d.newHTTP(); err != nil {
		return nil, err
	}
	if err := d.newPprof(); err != nil {
		return nil, err
	}
	return d, nil
}

func (d *daemon) newDHCP(ctx context.Context) error {
	c := d.cfg.DHCP
	if c.Mode == config.ModeOff {
		return nil
	}
	log := d.log.With("service", "dhcp")
	var leases dhcp.Leases
	if c.Mode == config.ModeFull {
		leases = engine.NewLeases(d.store)
	}
	srv, err := dhcp.New(dhcpConfig(d.cfg), leases, d.chooser, log)
	if err != nil {
		return err
	}
	d.dhcp = srv
	ifaces := c.Interfaces
	if len(ifaces) == 0 {
		ifaces = []string{""} // every interface
	}
	ports := []int{dhcp.PortServer}
	if c.Mode == config.ModeProxy {
		ports = append(ports, dhcp.PortPXE)
	}
	for _, ifname := range ifaces {
		for _, port := range ports {
			conn, err := dhcp.ListenInterface(ctx, ifname, port)
			if err != nil {
				return err
			}
			d.dhcpConns = append(d.dhcpConns, conn)
		}
	}
	return nil
}

// dhcpConfig is the dhcp package's view of the configuration.
func dhcpConfig(cfg *config.Config) dhcp.Config {
	c := cfg.DHCP
	out := dhcp.Config{
		Mode:       dhcp.ModeFull,
		ServerIP:   cfg.Server.Advertise,
		Subnet:     c.Subnet,
		Router:     c.Router,
		DNS:        c.DNS,
		DomainName: c.Domain,
		LeaseTime:  c.LeaseTime,
		HTTPBase:   cfg.BaseURL(),
	}
	if c.Mode == config.ModeProxy {
		out.Mode = dhcp.ModeProxy
	}
	for _, r := range c.Ranges {
		out.Ranges = append(out.Ranges, dhcp.Range{Start: r.Start, End: r.End})
	}
	for _, r := range c.Reservations {
		out.Reservations = append(out.Reservations, dhcp.Reservation{MAC: r.MAC, IP: r.IP, Hostname: r.Hostname})
	}
	return out
}

func (d *daemon) newTFTP() error {
	c := d.cfg.TFTP
	if !c.Enabled {
		return nil
	}
	conn, err := net.ListenPacket("udp", c.Listen)
	if err != nil {
		return fmt.Errorf("tftp: %w", err)
	}
	d.tftpConn = conn
	d.tftp = tftp.New(tftpFS(c.Root), tftp.Config{MaxTransfersPerClient: c.MaxTransfersPerClient}, d.log.With("service", "tftp"))
	return nil
}

// start runs every service; the channel gets one value per service that
// stops serving.
func (d *daemon) start(ctx context.Context) <-chan error {
	errc := make(chan error, 5)
	d.runEngine(ctx)
	d.runLeader(ctx)
	run := func(name string, serve func() error) {
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			if err := serve(); err != nil {
				errc <- fmt.Errorf("%s: %w", name, err)
				return
			}
			errc <- nil
		}()
	}
	if d.dhcp != nil {
		run("dhcp", func() error { return d.serveDHCP(ctx) }) // on the leader only
	}
	if d.tftp != nil {
		run("tftp", func() error { return ignore(d.tftp.Serve(d.tftpConn), tftp.ErrServerClosed) })
	}
	run("http", func() error { return ignore(d.http.Serve(d.httpLn), http.ErrServerClosed) })
	if d.pprof != nil {
		run("pprof", func() error { return ignore(d.pprof.Serve(d.pprofLn), http.ErrServerClosed) })
	}
	go d.watchHalt(ctx, errc)
	return errc
}

// watchHalt stops the daemon when the state store halts on a log entry it
// cannot apply: an appliance serving from a state that lacks the entry
// would answer DHCP and boot requests from a state no other member has.
func (d *daemon) watchHalt(ctx context.Context, errc chan<- error) {
	select {
	case <-d.store.Halted():
		errc <- fmt.Errorf("state store: %w", d.store.HaltErr())
	case <-ctx.Done():
	}
}

func ignore(err, expected error) error {
	if errors.Is(err, expected) {
		return nil
	}
	return err
}

// stop lets HTTP requests and TFTP transfers in flight finish (until ctx is
// done), stops DHCP through cancel, and closes the store.
func (d *daemon) stop(ctx context.Context, cancel context.CancelFunc) error {
	var errs []error
	d.httpCancel() // watch streams end now; downloads in flight finish
	if err := d.http.Shutdown(ctx); errors.Is(err, context.DeadlineExceeded) {
		d.log.Warn("HTTP downloads still running at the stop deadline are cut off")
		d.http.Close()
	} else if err != nil {
		errs = append(errs, fmt.Errorf("http shutdown: %w", err))
	}
	if d.tftp != nil {
		d.tftp.Shutdown()
	}
	if d.pprof != nil {
		d.pprof.Close() // a CPU profile in progress is cut off
	}
	cancel()
	d.wg.Wait()
	errs = append(errs, d.close())
	d.log.Info("rackbootd stopped")
	return errors.Join(errs...)
}

// close releases what newDaemon opened.
func (d *daemon) close() error {
	for _, c := range d.dhcpConns {
		c.Close()
	}
	// Serve and Shutdown close these already; closing again is harmless.
	if d.tftpConn != nil {
		d.tftpConn.Close()
	}
	if d.httpLn != nil {
		d.httpLn.Close()
	}
	if d.pprofLn != nil {
		d.pprofLn.Close()
	}
	if d.httpCancel != nil {
		d.httpCancel()
	}
	if d.vip != nil {
		d.vip.Close()
	}
	if d.store != nil {
		if err := d.store.Close(); err != nil {
			return fmt.Errorf("state store: %w", err)
		}
	}
	return nil
}
