package bootsel

import (
	"context"
	"fmt"
	"net"

	"github.com/rackboot/rackboot/boot"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
)

// Source says why a MAC boots the infra-env it boots.
type Source string

// Sources, in the order they are tried.
const (
	SourceHost        Source = "host"           // a registered host's inventory lists the MAC
	SourceReservation Source = "reservation"    // a reservation names the infra-env
	SourceNMState     Source = "nmstate-config" // an NMState config the infra-env selects lists the MAC
	SourceLabel       Source = "label"          // the Labeler assigns it
	SourceDefault     Source = "default"        // the default infra-env
)

// Decision is which infra-env a MAC boots and why.
type Decision struct {
	InfraEnvID   string
	InfraEnvName string
	Source       Source
	// HostID is the registered host with this MAC (SourceHost).
	HostID string
	// Installed: that host's disk is installed; it boots from disk.
	Installed bool
	// Hostname is the reservation's hostname, if any.
	Hostname string
}

// Decide says which infra-env mac boots, trying in order: a registered
// host whose inventory lists mac (its infra-env); a reservation naming an
// infra-env; an NMState config listing mac that exactly one infra-env
// selects (its static networking would otherwise never reach the host);
// the Labeler; the default infra-env. An assignment naming an infra-env
// that does not exist is skipped. No assignment: an error wrapping
// boot.ErrNoBoot.
func (s *Selector) Decide(ctx context.Context, mac net.HardwareAddr) (Decision, error) {
	return s.decideWith(s.cur.Load(), mac)
}

func (s *Selector) decideWith(cur *settings, mac net.HardwareAddr) (Decision, error) {
	k, ok := keyOf(mac)
	if !ok {
		return Decision{}, fmt.Errorf("%w %s: not a 6-byte MAC", boot.ErrNoBoot, mac)
	}
	res := cur.res[k]
	var (
		d     Decision
		found bool
	)
	s.opts.Store.Read(func(m *engine.Model) {
		s.index.lookup(m, func(ix *macIndex) {
			d, found = s.decide(m, ix, cur, k, mac, res)
		})
	})
	if !found {
		return Decision{}, fmt.Errorf("%w %s: no host, reservation, NMState config or label assigns it to an infra-env, and there is no default infra-env", boot.ErrNoBoot, mac)
	}
	d.Hostname = res.Hostname
	return d, nil
}

// decide runs with m read-locked.
func (s *Selector) decide(m *engine.Model, ix *macIndex, cur *settings, k macKey, mac net.HardwareAddr, res Reservation) (Decision, bool) {
	if h, ok := registeredHost(m, ix, k); ok {
		if ie, ok := m.InfraEnv(h.InfraEnvID); ok {
			return Decision{InfraEnvID: ie.ID, InfraEnvName: ie.Name, Source: SourceHost, HostID: h.ID,
				Installed: installed(h)}, true
		}
	}
	try := []struct {
		src Source
		ref func() (string, bool)
	}{
		{SourceReservation, func() (string, bool) { return res.InfraEnv, res.InfraEnv != "" }},
		{SourceNMState, func() (string, bool) { return nmstateInfraEnv(m, ix, k) }},
		{SourceLabel, func() (string, bool) { return s.label(m, mac) }},
		{SourceDefault, func() (string, bool) { return cur.DefaultInfraEnv, cur.DefaultInfraEnv != "" }},
	}
	for _, t := range try {
		ref, ok := t.ref()
		if !ok {
			continue
		}
		if ie, ok := infraEnvByRef(m, ref); ok {
			return Decision{InfraEnvID: ie.ID, InfraEnvName: ie.Name, Source: t.src}, true
		}
	}
	return Decision{}, false
}

func (s *Selector) label(m *engine.Model, mac net.HardwareAddr) (string, bool) {
	if s.opts.Labels == nil {
		return "", false
	}
	return s.opts.Labels.InfraEnvFor(m, mac)
}

// registeredHost is the host whose inventory lists k; when several do (a
// machine that registered again under a new id), the one changed last.
func registeredHost(m *engine.Model, ix *macIndex, k macKey) (engine.Host, bool) {
	var (
		best  engine.Host
		found bool
	)
	for _, id := range ix.hosts[k] {
		h, ok := m.Host(id)
		if ok && (!found || h.Revision > best.Revision) {
			best, found = h, true
		}
	}
	return best, found
}

// installed reports whether a host's disk holds the installed OS, so its
// boot script exits to the next boot device (boot-order control): it is
// installed, or its installation reached the stage Rebooting (or a later
// one), when the image and its Ignition are on the disk. A reset clears
// the stage, and the host boots discovery again.
func installed(h engine.Host) bool {
	return h.Status == models.HostStatusInstalled || h.Status == models.HostStatusAddedToExistingCluster ||
		engine.PastRebooting(h.Progress.CurrentStage)
}

// nmstateInfraEnv is the infra-env selecting an NMState config that lists
// k, when exactly one infra-env does.
func nmstateInfraEnv(m *engine.Model, ix *macIndex, k macKey) (string, bool) {
	names := ix.nmstate[k]
	if len(names) == 0 {
		return "", false
	}
	var found []string
	for ie := range m.InfraEnvs() {
		for _, name := range names {
			if n, ok := m.NMStateConfig(name); ok && engine.Selects(ie.StaticNetworkSelector, n.Labels) {
				found = append(found, ie.ID)
				break
			}
		}
	}
	if len(found) != 1 {
		return "", false
	}
	return found[0], true
}

// infraEnvByRef finds an infra-env by id, else by name (the first, in id
// order, of that name).
func infraEnvByRef(m *engine.Model, ref string) (engine.InfraEnv, bool) {
	if ie, ok := m.InfraEnv(ref); ok {
		return ie, true
	}
	for ie := range m.InfraEnvs() {
		if ie.Name == ref {
			return ie, true
		}
	}
	return engine.InfraEnv{}, false
}
