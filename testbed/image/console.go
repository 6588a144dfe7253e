package image

import (
	"errors"
	"fmt"
	"strings"
)

// Console markers printed by the image's /init and udhcpc script.
const (
	MarkerLease          = "RACKBOOT-LEASE"
	MarkerIgnitionBegin  = "RACKBOOT-IGNITION-BEGIN"
	MarkerIgnitionEnd    = "RACKBOOT-IGNITION-END"
	MarkerIgnitionAbsent = "RACKBOOT-IGNITION-NONE"
	MarkerDone           = "RACKBOOT-DONE"
	MarkerError          = "RACKBOOT-ERROR"
)

// Console markers of the discovery image's /init.
const (
	MarkerIgnitionApplied = "RACKBOOT-IGNITION-APPLIED" // every Ignition stage passed
	MarkerIgnitionLog     = "RACKBOOT-IGNITION:"        // prefixes Ignition's log lines
	MarkerAgentStart      = "RACKBOOT-AGENT-START"      // rackboot-agent (re)started
	MarkerAgentLog        = "RACKBOOT-AGENT:"           // prefixes the agent's output
	MarkerAgentExit       = "RACKBOOT-AGENT-EXIT"       // the agent exited; restarted in 10 s
	MarkerReady           = "RACKBOOT-READY"            // /init is done; the agent runs
)

// Errors returned by the console parsers.
var (
	ErrNoLease    = errors.New("image: no lease reported on the console")
	ErrNoIgnition = errors.New("image: no config.ign reported on the console")
)

// Lease is what udhcpc inside the VM was given, as printed on a
// RACKBOOT-LEASE line. Empty fields were absent from the DHCP reply.
type Lease struct {
	IP       string
	Mask     string // prefix length
	Router   string // comma-separated
	DNS      string // comma-separated
	Hostname string
	Server   string // option 54
	SIAddr   string
	BootFile string
}

// lines splits a serial console log into lines without carriage returns.
func lines(console string) []string {
	return strings.Split(strings.ReplaceAll(console, "\r", ""), "\n")
}

// ParseLease returns the last lease reported on the console.
func ParseLease(console string) (Lease, error) {
	var last string
	for _, l := range lines(console) {
		if i := strings.Index(l, MarkerLease+" "); i >= 0 {
			last = l[i+len(MarkerLease)+1:]
		}
	}
	if last == "" {
		return Lease{}, ErrNoLease
	}
	var ls Lease
	fields := map[string]*string{
		"ip": &ls.IP, "mask": &ls.Mask, "router": &ls.Router, "dns": &ls.DNS,
		"hostname": &ls.Hostname, "server": &ls.Server, "siaddr": &ls.SIAddr, "bootfile": &ls.BootFile,
	}
	for _, kv := range strings.Fields(last) {
		k, v, ok := strings.Cut(kv, "=")
		if p, known := fields[k]; ok && known {
			*p = v
		}
	}
	if ls.IP == "" {
		return Lease{}, fmt.Errorf("%w: lease line without ip: %q", ErrNoLease, last)
	}
	return ls, nil
}

// ParseIgnition returns the text printed between the Ignition markers (the
// VM's /config.ign), or ErrNoIgnition when the VM reported none.
func ParseIgnition(console string) ([]byte, error) {
	var (
		out    []string
		inside bool
	)
	for _, l := range lines(console) {
		switch {
		case strings.HasSuffix(l, MarkerIgnitionBegin):
			inside, out = true, nil
		case inside && strings.HasSuffix(l, MarkerIgnitionEnd):
			return []byte(strings.TrimSpace(strings.Join(out, "\n"))), nil
		case inside:
			out = append(out, l)
		case strings.HasSuffix(l, MarkerIgnitionAbsent):
			return nil, fmt.Errorf("%w: the VM has no /config.ign", ErrNoIgnition)
		}
	}
	return nil, ErrNoIgnition
}

// Errors returns the RACKBOOT-ERROR lines on the console.
func Errors(console string) []string {
	var errs []string
	for _, l := range lines(console) {
		if i := strings.Index(l, MarkerError); i >= 0 {
			errs = append(errs, l[i:])
		}
	}
	return errs
}
