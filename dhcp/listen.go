package dhcp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// ListenInterface opens a UDP socket on 0.0.0.0:port bound to the network
// interface ifname (SO_BINDTODEVICE), able to send broadcasts, sharing the
// port with sockets bound to other interfaces (SO_REUSEADDR). Binding to a
// device needs CAP_NET_RAW, and port 67 CAP_NET_BIND_SERVICE.
func ListenInterface(ctx context.Context, ifname string, port int) (net.PacketConn, error) {
	lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) {
			serr = setSockopts(int(fd), ifname)
		})
		return errors.Join(err, serr)
	}}
	conn, err := lc.ListenPacket(ctx, "udp4", net.JoinHostPort("0.0.0.0", strconv.Itoa(port)))
	if err != nil {
		return nil, fmt.Errorf("dhcp: listen on %s port %d: %w", ifname, port, err)
	}
	return conn, nil
}

func setSockopts(fd int, ifname string) error {
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
		return fmt.Errorf("SO_REUSEADDR: %w", err)
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_BROADCAST, 1); err != nil {
		return fmt.Errorf("SO_BROADCAST: %w", err)
	}
	// A deep receive queue absorbs bursts while handlers wait for the lease
	// store; the kernel caps it at net.core.rmem_max.
	_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, 4<<20)
	if ifname == "" {
		return nil
	}
	if err := unix.BindToDevice(fd, ifname); err != nil {
		return fmt.Errorf("SO_BINDTODEVICE %s: %w", ifname, err)
	}
	return nil
}

// ListenAndServe serves on every interface in ifaces: port 67 and, in proxy
// mode, port 4011 (the mode at the time of the call decides which sockets
// are opened). It returns when ctx is done (nil) or a socket fails.
func (s *Server) ListenAndServe(ctx context.Context, ifaces []string) error {
	ports := []int{PortServer}
	if s.Config().Mode == ModeProxy {
		ports = append(ports, PortPXE)
	}
	var conns []net.PacketConn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for _, ifname := range ifaces {
		for _, port := range ports {
			c, err := ListenInterface(ctx, ifname, port)
			if err != nil {
				return err
			}
			conns = append(conns, c)
		}
	}
	return s.ServeAll(ctx, conns...)
}

// ServeAll runs Serve on every conn until ctx is done or one fails; then it
// stops them all and returns the first error.
func (s *Server) ServeAll(ctx context.Context, conns ...net.PacketConn) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.Serve(ctx, c); err != nil {
				once.Do(func() { first = err })
				cancel()
			}
		}()
	}
	wg.Wait()
	return first
}
