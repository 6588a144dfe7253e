package boot

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"

	"github.com/rackboot/rackboot/boot/ignition"
	"github.com/rackboot/rackboot/ipxe"
)

// Sentinel errors of this package.
var (
	ErrNoBoot         = errors.New("no boot for MAC")
	ErrInvalidProfile = errors.New("invalid boot profile")
	ErrInvalidHost    = errors.New("invalid host reservation")
)

// Profile is what a set of machines boots. Kernel, Initrd and Ignition are
// file paths; Ignition may be empty (config.ign then only names the host).
// A profile with no MACs is the default for every MAC no profile lists.
type Profile struct {
	Name     string
	Kernel   string
	Initrd   string
	Cmdline  string
	Ignition string
	MACs     []net.HardwareAddr
}

// Host is a reservation: a MAC and the hostname its config.ign writes to
// /etc/hostname (none when empty).
type Host struct {
	MAC      net.HardwareAddr
	Hostname string
}

// Action is what a machine's iPXE script does.
type Action int

// The actions.
const (
	ActionBoot Action = iota + 1 // boot the profile's kernel and initrd
	ActionExit                   // exit iPXE: boot from the next device (installed disk)
)

// Choice is what one MAC boots. Ignition is the host's config.ign; it is
// shared, so callers must not modify it.
type Choice struct {
	Action   Action
	Profile  string
	Hostname string
	Kernel   string
	Initrd   string
	Cmdline  string
	Ignition []byte
}

// Catalog is an immutable, validated set of profiles and host reservations.
// It is safe for concurrent use.
type Catalog struct {
	byMAC    map[[6]byte]*profile
	def      *profile
	hosts    map[[6]byte]hostEntry
	names    []string
	warnings []string
}

type profile struct {
	Profile
	cfg   ignition.Config
	plain []byte // config.ign for a host without a hostname
}

type hostEntry struct {
	hostname string
	ign      []byte // config.ign of this host under its profile
}

// NewCatalog checks every profile and host and builds the catalog: each
// Ignition file must parse and validate, each kernel and initrd must be a
// regular file, each command line and hostname must be safe for an iPXE
// script, at most one profile may be the default and no MAC may be in two
// profiles. The error lists every problem found, one sentence each.
func NewCatalog(profiles []Profile, hosts []Host) (*Catalog, error) {
	c := &Catalog{byMAC: map[[6]byte]*profile{}, hosts: map[[6]byte]hostEntry{}}
	var errs []error
	for _, p := range profiles {
		if err := c.addProfile(p); err != nil {
			errs = append(errs, fmt.Errorf("%w %q: %w", ErrInvalidProfile, p.Name, err))
		}
	}
	for _, h := range hosts {
		if err := c.addHost(h); err != nil {
			errs = append(errs, fmt.Errorf("%w for %s: %w", ErrInvalidHost, h.MAC, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Catalog) addProfile(p Profile) error {
	if err := checkProfile(p, c.names); err != nil {
		return err
	}
	cfg, err := loadIgnition(p.Ignition)
	if err != nil {
		return err
	}
	for _, w := range cfg.Warnings() {
		c.warnings = append(c.warnings, fmt.Sprintf("profile %q: %s: %s", p.Name, p.Ignition, w))
	}
	plain, err := cfg.ForHost("")
	if err != nil {
		return err
	}
	e := &profile{Profile: p, cfg: cfg, plain: plain}
	e.MACs = slices.Clone(p.MACs)
	if err := c.index(e); err != nil {
		return err
	}
	c.names = append(c.names, p.Name)
	return nil
}

func checkProfile(p Profile, seen []string) error {
	switch {
	case p.Name == "":
		return errors.New("the profile has no name")
	case slices.Contains(seen, p.Name):
		return errors.New("two profiles have this name")
	}
	if err := checkFile("kernel", p.Kernel); err != nil {
		return err
	}
	if err := checkFile("initrd", p.Initrd); err != nil {
		return err
	}
	if err := ipxe.CheckKernelArgs(p.Cmdline); err != nil {
		return fmt.Errorf("cmdline: %w", err)
	}
	return nil
}

func checkFile(what, path string) error {
	if path == "" {
		return fmt.Errorf("no %s file is set", what)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("%s file: %w", what, err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s file %s is not a regular file", what, path)
	}
	return nil
}

func loadIgnition(path string) (ignition.Config, error) {
	if path == "" {
		return ignition.Config{}, nil
	}
	cfg, err := ignition.Load(path)
	if err != nil {
		return ignition.Config{}, fmt.Errorf("ignition file %w", err)
	}
	return cfg, nil
}

// index records which MACs the profile serves, or makes it the default.
func (c *Catalog) index(p *profile) error {
	if len(p.MACs) == 0 {
		if c.def != nil {
			return fmt.Errorf("profile %q is already the default (empty macs); there can be only one", c.def.Name)
		}
		c.def = p
		return nil
	}
	for _, mac := range p.MACs {
		k, ok := key(mac)
		if !ok {
			return fmt.Errorf("MAC %q is not 6 bytes", mac.String())
		}
		if other, dup := c.byMAC[k]; dup {
			return fmt.Errorf("MAC %s is already in profile %q", mac, other.Name)
		}
		c.byMAC[k] = p
	}
	return nil
}

func (c *Catalog) addHost(h Host) error {
	k, ok := key(h.MAC)
	if !ok {
		return fmt.Errorf("MAC %q is not 6 bytes", h.MAC.String())
	}
	if _, dup := c.hosts[k]; dup {
		return errors.New("the MAC is reserved twice")
	}
	c.hosts[k] = hostEntry{}
	if h.Hostname == "" {
		return nil
	}
	if err := ipxe.CheckHostname(h.Hostname); err != nil {
		return err
	}
	e := hostEntry{hostname: h.Hostname}
	if p := c.lookup(k); p != nil {
		var err error
		if e.ign, err = p.cfg.ForHost(h.Hostname); err != nil {
			return fmt.Errorf("under profile %q: %w", p.Name, err)
		}
	}
	c.hosts[k] = e
	return nil
}

func (c *Catalog) lookup(k [6]byte) *profile {
	if p, ok := c.byMAC[k]; ok {
		return p
	}
	return c.def
}

func key(mac net.HardwareAddr) ([6]byte, bool) {
	var k [6]byte
	if len(mac) != 6 {
		return k, false
	}
	copy(k[:], mac)
	return k, true
}

// Choose returns what mac boots: the profile that lists it, else the default
// profile, else an error wrapping ErrNoBoot.
func (c *Catalog) Choose(_ context.Context, mac net.HardwareAddr) (Choice, error) {
	k, ok := key(mac)
	p := c.lookup(k)
	if !ok || p == nil {
		return Choice{}, fmt.Errorf("%w %s: no profile lists it and there is no default profile", ErrNoBoot, mac)
	}
	ch := Choice{Action: ActionBoot, Profile: p.Name, Kernel: p.Kernel, Initrd: p.Initrd, Cmdline: p.Cmdline, Ignition: p.plain}
	if h, ok := c.hosts[k]; ok && h.hostname != "" {
		ch.Hostname, ch.Ignition = h.hostname, h.ign
	}
	return ch, nil
}

// Bootable reports whether mac gets a boot at all (a profile lists it or
// there is a default profile); the DHCP server asks this.
func (c *Catalog) Bootable(_ context.Context, mac net.HardwareAddr) bool {
	k, ok := key(mac)
	return ok && c.lookup(k) != nil
}

// Profiles returns the profile names in the order given to NewCatalog.
func (c *Catalog) Profiles() []string { return slices.Clone(c.names) }

// Warnings lists what Ignition accepts but warns about in the profiles'
// configs (an unknown key, often a typo), one sentence each.
func (c *Catalog) Warnings() []string { return slices.Clone(c.warnings) }
