package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/rackboot/rackboot/apitls"
	"github.com/rackboot/rackboot/boot/httpboot"
	"github.com/rackboot/rackboot/cluster/rackca"
)

// newHTTP builds the HTTP server: the boot URLs of boot/httpboot, the
// assisted-installer API under /api/assisted-install/v2, the
// Kubernetes-compatible API (/api, /apis), the web console under /console/,
// /healthz and /metrics, plain HTTP and HTTPS on one port (apitls).
func (d *daemon) newHTTP() error {
	boot, err := httpboot.New(httpboot.Options{
		BaseURL: d.cfg.BaseURL(),
		Boot:    d.chooser,
		IPXE:    ipxeFS(d.cfg.TFTP.Root),
		Images:  d.sel,
		Rootfs:  d.sel,
		Agents:  d.sel,
		Logger:  d.log.With("service", "http"),
	})
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "ok")
	})
	reg := d.newMetrics()
	mux.Handle("GET /metrics", reg.Handler())
	d.mountAPI(mux)
	d.mountBMH(mux)
	if err := d.mountConsole(mux); err != nil { // console.go
		return err
	}
	d.mountKube(mux)
	mux.Handle("/", boot)
	ln, err := net.Listen("tcp", d.cfg.Server.HTTPListen)
	if err != nil {
		return fmt.Errorf("http: %w", err)
	}
	// The same port speaks HTTPS (kubectl sends its token over TLS only).
	cert, _, err := apitls.LoadOrCreate(d.cfg.Server.DataDir, d.apiHosts(), time.Now())
	if err != nil {
		ln.Close()
		return fmt.Errorf("http: %w", err)
	}
	rack, err := d.rackCerts()
	if err != nil {
		ln.Close()
		return fmt.Errorf("http: %w", err)
	}
	d.httpLn = apitls.Listener(ln, apitls.Config(cert, rack...))
	base, cancel := context.WithCancel(context.Background())
	d.httpCancel = cancel
	// No WriteTimeout: kernel downloads and watch streams are long.
	d.http = &http.Server{
		Handler:           reg.Instrument(mux),
		BaseContext:       func(net.Listener) context.Context { return base },
		ConnContext:       apitls.ConnContext,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	return nil
}

// rackCerts are the API's certificates beside the self-signed one: in a
// rack the node certificate (signed by the rack CA, naming
// rackca.APIServerName) for clients that ask for that name.
func (d *daemon) rackCerts() ([]tls.Certificate, error) {
	var node tls.Certificate
	var caDER []byte
	if cl := d.cfg.Cluster; cl != nil && cl.Identity != nil {
		node, caDER = cl.Identity.Cert, cl.Identity.CA.Raw
	}
	rack, ok, err := apitls.RackCert(d.cfg.Server.DataDir, node, caDER, rackca.APIServerName)
	if err != nil || !ok {
		return nil, err
	}
	return []tls.Certificate{rack}, nil
}

// apiHosts are the addresses the API certificate names: the advertised
// address and the rack's service address.
func (d *daemon) apiHosts() []string {
	hosts := []string{d.cfg.Server.Advertise.String()}
	if cl := d.cfg.Cluster; cl != nil && cl.VIP.IsValid() {
		hosts = append(hosts, cl.VIP.Addr().String())
	}
	return hosts
}

// tftpFS is the tree the TFTP server serves. os.DirFS follows symbolic
// links: Debian's ipxe package makes /usr/lib/ipxe/ipxe.efi a link to
// /boot/ipxe.efi. The tftp package refuses "..", absolute and other
// invalid names before they reach it, so only links that the administrator
// put in the root lead out of it.
func tftpFS(root string) fs.FS { return os.DirFS(root) }

// ipxeFS is the tree of iPXE binaries served under /ipxe/, or nil when the
// TFTP root does not exist (TFTP off and no binaries installed).
func ipxeFS(root string) fs.FS {
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return nil
	}
	return tftpFS(root)
}
