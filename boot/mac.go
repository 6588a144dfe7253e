package boot

import (
	"errors"
	"fmt"
	"net"
)

// ErrBadMAC is wrapped by the error for a string that is not a MAC address.
var ErrBadMAC = errors.New("malformed MAC address")

// ParseMAC parses a 6-byte MAC written as six hex pairs joined by '-' (as
// iPXE's ${mac:hexhyp}) or ':', in any case: 52-54-00-ab-00-01 or
// 52:54:00:AB:00:01.
func ParseMAC(s string) (net.HardwareAddr, error) {
	if len(s) != 17 || (s[2] != '-' && s[2] != ':') {
		return nil, fmt.Errorf("%w: %q is not six hex pairs joined by '-' or ':'", ErrBadMAC, s)
	}
	mac := make(net.HardwareAddr, 6)
	for i := range mac {
		if i > 0 && s[3*i-1] != s[2] {
			return nil, fmt.Errorf("%w: %q mixes separators", ErrBadMAC, s)
		}
		hi, ok1 := unhex(s[3*i])
		lo, ok2 := unhex(s[3*i+1])
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("%w: %q has a non-hex digit", ErrBadMAC, s)
		}
		mac[i] = hi<<4 | lo
	}
	return mac, nil
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
