package vip

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
)

// answer answers ARP requests for the service address while it is held,
// until Close.
func (v *VIP) answer() {
	defer close(v.done)
	buf := make([]byte, 1500)
	addr := v.cfg.Address.Addr()
	for {
		select {
		case <-v.stop:
			return
		default:
		}
		n, ok, err := v.arp.receive(buf)
		if err != nil {
			v.cfg.Log.Error("reading ARP failed; no longer answering for the service address", "interface", v.cfg.Interface, "err", err)
			<-v.stop
			return
		}
		if !ok || !v.held.Load() {
			continue
		}
		req, ok := parseARPRequest(buf[:n])
		// A request naming the address as its sender is another holder's
		// announcement, not a question.
		if !ok || req.tpa != addr || req.spa == addr || string(req.sha) == string(v.mac) {
			continue
		}
		if err := v.arp.send(replyFrame(req, v.mac, addr)); err != nil {
			v.cfg.Log.Warn("answering ARP failed", "vip", addr.String(), "mac", req.sha.String(), "err", err)
		}
	}
}

// loopback is the loopback interface's index.
func loopback() (int, error) {
	lo, err := net.InterfaceByName("lo")
	if err != nil {
		return 0, fmt.Errorf("%w: loopback interface: %w", ErrConfig, err)
	}
	return lo.Index, nil
}

// ErrSysctl is returned when the interface's ARP settings cannot be set.
var ErrSysctl = errors.New("vip: ARP settings")

// leaveARPToUs makes the kernel answer ARP on ifname only for addresses
// on ifname itself (arp_ignore=1: the service address is on the loopback)
// and name such an address, not the service address, as the sender of its
// own requests (arp_announce=2).
func leaveARPToUs(ifname string) error {
	dir := filepath.Join("/proc/sys/net/ipv4/conf", ifname)
	for _, s := range []struct{ key, val string }{{"arp_ignore", "1"}, {"arp_announce", "2"}} {
		if err := os.WriteFile(filepath.Join(dir, s.key), []byte(s.val+"\n"), 0o644); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrSysctl, s.key, err)
		}
	}
	return nil
}
