package bootsel

import (
	"errors"
	"fmt"
	"net"

	"github.com/rackboot/rackboot/ipxe"
)

// Settings are what the daemon's configuration gives a Selector; Reload
// swaps them at once (SIGHUP) without stopping lookups.
type Settings struct {
	// Profiles resolves ImageSet.Profile to a boot profile (kernel,
	// initrd, base command line; a profile's Ignition file is not used:
	// the engine builds config.ign); required.
	Profiles Profiles
	// DefaultProfile is the profile of an infra-env whose image set names
	// none (empty: such an infra-env boots nothing, ErrNoImage).
	DefaultProfile string
	// DefaultInfraEnv (an id or a name) is what a MAC nothing else assigns
	// boots; empty: such a MAC boots nothing.
	DefaultInfraEnv string
	// Reservations assign MACs to infra-envs and hostnames.
	Reservations []Reservation
	// Agents are the rackboot-agent binaries by Go architecture (amd64,
	// arm64) that hosts of CoreOS image sets fetch through their
	// discovery Ignition (AgentURL); nil: none.
	Agents map[string]AgentBinary
}

// AgentBinary is a rackboot-agent binary on the appliance and its hex
// sha512.
type AgentBinary struct {
	Path   string
	SHA512 string
}

// AgentPath is the URL path under which the agent for a Go architecture
// is served.
func AgentPath(goarch string) string { return "/agent/" + goarch + "/rackboot-agent" }

// Reservation assigns one MAC: the infra-env it boots (id or name; empty:
// the reservation only names the host) and the hostname its config.ign
// writes to /etc/hostname (none when empty).
type Reservation struct {
	MAC      net.HardwareAddr
	InfraEnv string
	Hostname string
}

// settings is Settings checked and indexed.
type settings struct {
	Settings
	res map[macKey]Reservation
}

// Reload checks st and makes it current. Profiles is required; each
// reservation needs a 6-byte MAC, reserved once, and a hostname safe in an
// iPXE script. On error nothing changes.
func (s *Selector) Reload(st Settings) error {
	if st.Profiles == nil {
		return fmt.Errorf("%w: no boot profiles", ErrOptions)
	}
	res, err := reservations(st.Reservations)
	if err != nil {
		return err
	}
	st.Reservations = nil
	s.cur.Store(&settings{Settings: st, res: res})
	return nil
}

func reservations(rs []Reservation) (map[macKey]Reservation, error) {
	m := make(map[macKey]Reservation, len(rs))
	var errs []error
	for _, r := range rs {
		k, ok := keyOf(r.MAC)
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("%w: MAC %q is not 6 bytes", ErrReservation, r.MAC.String()))
			continue
		case r.Hostname != "":
			if err := ipxe.CheckHostname(r.Hostname); err != nil {
				errs = append(errs, fmt.Errorf("%w for %s: %w", ErrReservation, r.MAC, err))
				continue
			}
		}
		if _, dup := m[k]; dup {
			errs = append(errs, fmt.Errorf("%w: %s is reserved twice", ErrReservation, r.MAC))
			continue
		}
		r.MAC = append(net.HardwareAddr(nil), r.MAC...)
		m[k] = r
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return m, nil
}
