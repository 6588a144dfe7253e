package config

import (
	"fmt"
	"regexp"

	"github.com/rackboot/rackboot/ipxe"
)

var profileName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$`)

// profiles checks [[profile]]: unique names, files that exist, safe kernel
// arguments, each MAC in one profile and at most one default profile.
func (c *checker) profiles(ps []fileProfile) {
	names := map[string]Pos{}
	macs := map[string]Pos{}
	defaultAt := ""
	for i, f := range ps {
		base := fmt.Sprintf("profile[%d]", i)
		p, ok := c.profile(base, f, names, macs)
		if len(f.MACs) == 0 {
			if defaultAt != "" {
				c.r.add(c.ix.key(base), "profile %q is a second default profile (no macs); %s already is", f.Name, defaultAt)
				ok = false
			}
			defaultAt = fmt.Sprintf("profile %q at %s", f.Name, at(c.ix.key(base)))
		}
		if ok {
			c.cfg.Profiles = append(c.cfg.Profiles, p)
		}
	}
}

func (c *checker) profile(base string, f fileProfile, names, macs map[string]Pos) (Profile, bool) {
	p := Profile{Name: f.Name, Cmdline: f.Cmdline}
	ok := true
	switch {
	case f.Name == "":
		c.missing(base+".name", "give the profile a name")
		ok = false
	case !profileName.MatchString(f.Name):
		c.errAt(base+".name", "profile.name %q must be 1-63 letters, digits, '.', '_' or '-'", f.Name)
		ok = false
	default:
		ok = c.once(base+".name", f.Name, names, "profile.name %q is given twice (also at %s)")
	}
	p.Kernel, ok = c.file(base+".kernel", f.Kernel, true), ok && f.Kernel != ""
	p.Initrd, ok = c.file(base+".initrd", f.Initrd, true), ok && f.Initrd != ""
	p.Ignition = c.file(base+".ignition", f.Ignition, false)
	if err := ipxe.CheckKernelArgs(f.Cmdline); err != nil {
		c.errAt(base+".cmdline", "profile.cmdline %q: %s", f.Cmdline, unsafeReason(f.Cmdline))
		ok = false
	}
	for j, s := range f.MACs {
		path := fmt.Sprintf("%s.macs[%d]", base, j)
		hw, good := c.mac(path, s, macs, "%s %s is listed twice (also at %s)")
		if !good {
			ok = false
			continue
		}
		p.MACs = append(p.MACs, hw)
	}
	return p, ok
}

// file checks the file a profile names and returns its resolved path.
func (c *checker) file(path, written string, required bool) string {
	if written == "" {
		if required {
			c.missing(path, "set the path of the file")
		}
		return ""
	}
	resolved := c.path(written)
	c.exists(path, written, resolved, false)
	return resolved
}

// unsafeReason names the first character ipxe.CheckKernelArgs rejects.
func unsafeReason(cmdline string) string {
	for i, r := range cmdline {
		if ipxe.CheckKernelArgs(string(r)) != nil {
			return fmt.Sprintf("character %q at offset %d could inject iPXE commands; kernel arguments may hold letters, digits, spaces and . _ , : / = + @ %% - ~", r, i)
		}
	}
	return "rejected"
}
