package dhcp

import (
	"net"
	"net/netip"
	"sync"
	"time"
)

// pool tracks addresses offered or being committed, which the lease store
// does not know about yet, and where the next free-address search starts.
type pool struct {
	mu   sync.Mutex
	held map[netip.Addr]hold
	// offered is the address last held for each MAC, so that a client
	// retransmitting its DISCOVER is offered the same address again
	// (RFC 2131 4.3.1) instead of taking another from the pool.
	offered map[string]netip.Addr
	cursor  uint64
	// full: a whole scan found nothing free; until then, new clients are
	// turned away without another scan (a full /16 costs milliseconds).
	full time.Time
}

// fullRetry is how long a failed scan is trusted.
const fullRetry = time.Second

// hold keeps an address for one client until a deadline.
type hold struct {
	mac   string
	until time.Time
}

// usable reports whether mac may take ip at now: it is not the server's,
// the subnet's network or broadcast address, nor reserved for, leased to or
// held for another client, nor declined. Called with p.mu held.
func (s *Server) usable(st *state, ip netip.Addr, mac net.HardwareAddr, now time.Time) bool {
	if ip == st.cfg.ServerIP || ip == st.cfg.Router || ip == st.cfg.Subnet.Masked().Addr() || ip == broadcast(st.cfg.Subnet) {
		return false
	}
	if r, ok := st.resByIP[ip]; ok && string(r.MAC) != string(mac) {
		return false
	}
	if h, ok := s.pool.held[ip]; ok && h.mac != string(mac) && now.Before(h.until) {
		return false
	}
	l, ok := s.leases.ByIP(ip)
	if !ok || !l.Active(now) {
		return true
	}
	return !l.Declined() && string(l.MAC) == string(mac)
}

// claim holds ip for mac until now+d when mac may use it.
func (s *Server) claim(st *state, ip netip.Addr, mac net.HardwareAddr, now time.Time, d time.Duration) bool {
	s.pool.mu.Lock()
	defer s.pool.mu.Unlock()
	if !s.usable(st, ip, mac, now) {
		return false
	}
	s.pool.keep(ip, mac, now.Add(d))
	return true
}

// keep holds ip for mac until until. Called with p.mu held.
func (p *pool) keep(ip netip.Addr, mac net.HardwareAddr, until time.Time) {
	p.held[ip] = hold{mac: string(mac), until: until}
	p.offered[string(mac)] = ip
}

// heldFor returns the address held for mac, if its hold has not expired.
func (s *Server) heldFor(mac net.HardwareAddr, now time.Time) (netip.Addr, bool) {
	s.pool.mu.Lock()
	defer s.pool.mu.Unlock()
	ip, ok := s.pool.offered[string(mac)]
	if !ok {
		return netip.Addr{}, false
	}
	h, ok := s.pool.held[ip]
	if !ok || h.mac != string(mac) || !now.Before(h.until) {
		return netip.Addr{}, false
	}
	return ip, true
}

// unhold drops mac's hold on ip once the lease store knows the lease.
func (s *Server) unhold(ip netip.Addr, mac net.HardwareAddr) {
	s.pool.mu.Lock()
	defer s.pool.mu.Unlock()
	if h, ok := s.pool.held[ip]; ok && h.mac == string(mac) {
		delete(s.pool.held, ip)
	}
	if s.pool.offered[string(mac)] == ip {
		delete(s.pool.offered, string(mac))
	}
}

// allocate finds a free address in the ranges, starting after the last one
// handed out, and holds it for mac.
func (s *Server) allocate(st *state, mac net.HardwareAddr, now time.Time, d time.Duration) (netip.Addr, bool) {
	total := rangesSize(st.cfg.Ranges)
	if total == 0 {
		return netip.Addr{}, false
	}
	s.pool.mu.Lock()
	defer s.pool.mu.Unlock()
	if now.Before(s.pool.full) {
		return netip.Addr{}, false
	}
	if len(s.pool.held) > 4096 {
		s.pool.expire(now)
	}
	for i := uint64(0); i < total; i++ {
		pos := (s.pool.cursor + i) % total
		ip := rangesAt(st.cfg.Ranges, pos)
		if s.usable(st, ip, mac, now) {
			s.pool.cursor = pos + 1
			s.pool.keep(ip, mac, now.Add(d))
			return ip, true
		}
	}
	s.pool.full = now.Add(fullRetry)
	return netip.Addr{}, false
}

// freed forgets a failed scan once an address has been given back.
func (s *Server) freed() {
	s.pool.mu.Lock()
	s.pool.full = time.Time{}
	s.pool.mu.Unlock()
}

// expire forgets holds past their deadline. Called with p.mu held.
func (p *pool) expire(now time.Time) {
	for ip, h := range p.held {
		if !now.Before(h.until) {
			delete(p.held, ip)
			if p.offered[h.mac] == ip {
				delete(p.offered, h.mac)
			}
		}
	}
}

func inRanges(rs []Range, ip netip.Addr) bool {
	for _, r := range rs {
		if r.Contains(ip) {
			return true
		}
	}
	return false
}

func rangesSize(rs []Range) uint64 {
	var n uint64
	for _, r := range rs {
		n += uint64(u32(r.End)-u32(r.Start)) + 1
	}
	return n
}

func rangesAt(rs []Range, pos uint64) netip.Addr {
	for _, r := range rs {
		n := uint64(u32(r.End)-u32(r.Start)) + 1
		if pos < n {
			return addr(u32(r.Start) + uint32(pos))
		}
		pos -= n
	}
	return netip.Addr{}
}

func broadcast(p netip.Prefix) netip.Addr {
	if !p.IsValid() {
		return netip.Addr{}
	}
	return addr(u32(p.Masked().Addr()) | (1<<(32-p.Bits()) - 1))
}

func u32(a netip.Addr) uint32 {
	b := a.As4()
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

func addr(v uint32) netip.Addr {
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}
