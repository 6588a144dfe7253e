package steps

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"net"
	"time"
)

// ntpEpochOffset is the number of seconds from 1900-01-01 (NTP's epoch) to
// 1970-01-01 (Unix's).
const ntpEpochOffset = 2208988800

// SNTPResult is one SNTP exchange (RFC 4330).
type SNTPResult struct {
	Stratum int
	// Offset is the server's clock minus the local clock.
	Offset time.Duration
	RTT    time.Duration
}

// SNTPQuery asks the NTP server at addr (host:port) for the time over UDP,
// waiting until ctx is done for a valid answer.
func SNTPQuery(ctx context.Context, addr string) (SNTPResult, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "udp", addr)
	if err != nil {
		return SNTPResult{}, fmt.Errorf("steps: sntp %s: %w", addr, err)
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	req := make([]byte, 48)
	req[0] = 0x23 // LI 0, version 4, mode 3 (client)
	// The transmit timestamp is a random nonce: the server echoes it as the
	// originate timestamp, which proves the answer is to this request.
	_, _ = rand.Read(req[40:48])
	t1 := time.Now()
	if _, err := conn.Write(req); err != nil {
		return SNTPResult{}, fmt.Errorf("steps: sntp %s: %w", addr, err)
	}
	buf := make([]byte, 512)
	for {
		n, err := conn.Read(buf)
		if err != nil {
			return SNTPResult{}, fmt.Errorf("steps: sntp %s: no answer: %w", addr, err)
		}
		t4 := time.Now()
		p, err := ParseSNTP(buf[:n])
		if err != nil || p.Originate != binary.BigEndian.Uint64(req[40:48]) {
			continue // not an answer to this request; keep waiting
		}
		if p.Stratum == 0 || p.Stratum > 15 || p.Leap == 3 || p.Transmit == 0 {
			return SNTPResult{Stratum: p.Stratum}, fmt.Errorf("%w: sntp %s: stratum %d, leap %d", ErrUnsynchronised, addr, p.Stratum, p.Leap)
		}
		t2, t3 := ntpTime(p.Receive), ntpTime(p.Transmit)
		offset := (t2.Sub(t1) + t3.Sub(t4)) / 2
		rtt := t4.Sub(t1) - t3.Sub(t2)
		return SNTPResult{Stratum: p.Stratum, Offset: offset, RTT: rtt}, nil
	}
}

// SNTPPacket is the part of an NTP packet an SNTP client reads.
type SNTPPacket struct {
	Leap, Version, Mode, Stratum int
	Originate, Receive, Transmit uint64 // NTP 64-bit timestamps
}

// ParseSNTP reads a server's NTP packet (mode 4, version 3 or 4, at least
// 48 bytes).
func ParseSNTP(b []byte) (SNTPPacket, error) {
	if len(b) < 48 {
		return SNTPPacket{}, fmt.Errorf("%w: ntp packet of %d bytes", ErrParse, len(b))
	}
	p := SNTPPacket{
		Leap: int(b[0] >> 6), Version: int(b[0] >> 3 & 7), Mode: int(b[0] & 7), Stratum: int(b[1]),
		Originate: binary.BigEndian.Uint64(b[24:32]),
		Receive:   binary.BigEndian.Uint64(b[32:40]),
		Transmit:  binary.BigEndian.Uint64(b[40:48]),
	}
	if p.Mode != 4 || p.Version < 3 || p.Version > 4 {
		return SNTPPacket{}, fmt.Errorf("%w: ntp packet mode %d version %d is not a server answer", ErrParse, p.Mode, p.Version)
	}
	return p, nil
}

// ntpTime converts an NTP timestamp (era 0, or era 1 after 2036) to time.
func ntpTime(ts uint64) time.Time {
	sec := int64(ts >> 32)
	frac := int64(ts & 0xffffffff)
	if sec < 1<<31 { // era 1: 2036-02-07 onwards
		sec += 1 << 32
	}
	return time.Unix(sec-ntpEpochOffset, frac*1e9>>32)
}

// NTPTimestamp converts t to an NTP 64-bit timestamp.
func NTPTimestamp(t time.Time) uint64 {
	sec := uint64(t.Unix()+ntpEpochOffset) & 0xffffffff
	frac := uint64(t.Nanosecond()) << 32 / 1e9
	return sec<<32 | frac
}
